import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CourtsSearchQuery,
  describeSearch,
  normaliseQueryText,
  PHRASE_MAX_WORDS,
  parseCourtsQuery,
  searchedAs,
  upstreamQueryFor,
} from "./query.ts";

function parsed(raw: string) {
  const result = parseCourtsQuery(raw);
  assert.ok(!("error" in result), `expected "${raw}" to be accepted`);
  return result;
}

function rejection(params: Record<string, unknown>): { path: string; message: string } {
  const result = CourtsSearchQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("courts query normalisation", () => {
  it("trims, collapses whitespace and control characters, keeps case for display, lower-cases the key", () => {
    assert.equal(normaliseQueryText("  Fourth \t\n  Amendment\u0000 "), "Fourth Amendment");
    const q = parsed("  Fourth \t  AMENDMENT ");
    assert.equal(q.text, "Fourth AMENDMENT");
    assert.equal(q.key, "fourth amendment");
    assert.deepEqual(q.words, ["fourth", "amendment"]);
  });

  it("gives every spelling of one query the same cache key and upstream query", () => {
    const spellings = ["fourth amendment", "Fourth Amendment", "  FOURTH   amendment", "fourth\tamendment"];
    const keys = new Set(spellings.map((s) => parsed(s).key));
    const upstream = new Set(spellings.map((s) => upstreamQueryFor(parsed(s))));
    assert.deepEqual([...keys], ["fourth amendment"]);
    assert.deepEqual([...upstream], ['"fourth amendment"']);
  });

  it("counts only tokens with a letter or digit as words", () => {
    assert.deepEqual(parsed("search & seizure").words, ["search", "seizure"]);
    assert.deepEqual(parsed("§ 1983 -- claims").words, ["1983", "claims"]);
  });
});

describe("phrase or every word", () => {
  it(`sends one word bare, up to ${PHRASE_MAX_WORDS} words as a quoted phrase, more as AND of every word`, () => {
    assert.equal(PHRASE_MAX_WORDS, 3);
    assert.equal(upstreamQueryFor(parsed("Miranda")), "miranda");
    assert.equal(searchedAs(parsed("Miranda")), "word");
    assert.equal(upstreamQueryFor(parsed("fair use")), '"fair use"');
    assert.equal(upstreamQueryFor(parsed("first amendment retaliation")), '"first amendment retaliation"');
    assert.equal(searchedAs(parsed("first amendment retaliation")), "phrase");
    assert.equal(
      upstreamQueryFor(parsed("ineffective assistance of counsel")),
      "ineffective AND assistance AND of AND counsel",
    );
    assert.equal(searchedAs(parsed("ineffective assistance of counsel")), "allWords");
  });

  it("keeps the buyer's operators and syntax as plain words", () => {
    // Lower case turns AND/OR/NOT into words; reserved characters are escaped; < and > are dropped.
    assert.equal(
      upstreamQueryFor(parsed("cats OR dogs NOT birds")),
      "cats AND or AND dogs AND not AND birds",
    );
    assert.equal(upstreamQueryFor(parsed("caseName:roe")), "casename\\:roe");
    assert.equal(upstreamQueryFor(parsed("42 u.s.c. 1983 (b)")), "42 AND u.s.c. AND 1983 AND \\(b\\)");
    assert.equal(upstreamQueryFor(parsed("wild* <b>card")), '"wild* bcard"');
    assert.equal(upstreamQueryFor(parsed("wild* card game <b>")), "wild\\* AND card AND game AND b");
    assert.equal(upstreamQueryFor(parsed("well-known mark")), '"well-known mark"');
    assert.equal(upstreamQueryFor(parsed('say "hi" \\o')), '"say \\"hi\\" \\\\o"');
  });

  it("describes how the query was searched", () => {
    assert.equal(describeSearch(parsed("Miranda")), 'the word "miranda"');
    assert.equal(describeSearch(parsed("fair use")), 'the exact phrase "fair use"');
    assert.match(describeSearch(parsed("a b c d")), /every one of the words "a", "b", "c", "d"/);
  });
});

describe("the q parameter", () => {
  it("accepts a query and hands the handler its parsed form", () => {
    assert.deepEqual(CourtsSearchQuery.parse({ q: " Fair  Use " }).q, {
      text: "Fair Use",
      key: "fair use",
      words: ["fair", "use"],
    });
  });

  it("rejects missing, empty, punctuation-only, too long and too many words, naming q", () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /q is required/],
      [{ q: "" }, /q is required/],
      [{ q: "   \t " }, /q is required/],
      [{ q: "\u0000" }, /q is required/],
      [{ q: "&& || --" }, /letter or digit/],
      [{ q: "x".repeat(301) }, /longer than 300/],
      [{ q: Array.from({ length: 31 }, (_, i) => `w${i}`).join(" ") }, /more than 30 words/],
      [{ q: 42 }, /q is required/],
    ];
    for (const [params, message] of cases) {
      const issue = rejection(params);
      assert.equal(issue.path, "q", JSON.stringify(params));
      assert.match(issue.message, message, JSON.stringify(params));
    }
  });
});
