import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CveSearchIndex,
  CveSearchIndexBuilder,
  compareRank,
  type IndexDoc,
  indexTokens,
  wordsOf,
} from "./search-index.ts";

const docs: IndexDoc[] = [
  {
    id: "CVE-2026-0001",
    published: "2026-11-01T00:00:00.000Z",
    text: "CVE-2026-0001 Cross-site scripting in Widget Portal 2.15.0 CWE-79 widgetsoft widget_portal",
  },
  {
    id: "CVE-2026-0002",
    published: "2026-11-03T00:00:00.000Z",
    text: "CVE-2026-0002 SQL injection in the Widget Portal login form CWE-89 widgetsoft widget_portal",
  },
  {
    id: "CVE-2026-0003",
    published: "2026-11-02T00:00:00.000Z",
    text: "CVE-2026-0003 Remote code execution in Apache Log4j2 (JNDI lookups). CWE-917 apache log4j",
  },
  {
    id: "CVE-2026-10000",
    published: "2026-11-02T00:00:00.000Z",
    text: "CVE-2026-10000 Stored cross site scripting in the Gadget admin panel CWE-79 gadgets gadget_admin",
  },
];

describe("tokenising", () => {
  it("lower-cases, splits on punctuation and keeps punctuated words whole too", () => {
    assert.deepEqual([...indexTokens("Cross-site (XSS) in Log4j2's 2.15.0, CVE-2021-44228!")].sort(), [
      "0",
      "15",
      "2",
      "2.15.0",
      "2021",
      "44228",
      "cross",
      "cross-site",
      "cve",
      "cve-2021-44228",
      "in",
      "log4j2",
      "log4j2's",
      "s",
      "site",
      "xss",
    ]);
  });

  it("finds no words in punctuation alone, and handles letters beyond ASCII", () => {
    assert.deepEqual(wordsOf(" !!! -- ... "), []);
    assert.deepEqual([...indexTokens("Überlauf im Dienst")], ["überlauf", "im", "dienst"]);
  });
});

describe("CveSearchIndex", () => {
  const index = CveSearchIndex.build(docs);

  it("requires every word (AND) and ranks newest published first", () => {
    assert.deepEqual(index.search("widget portal", 10).ids, ["CVE-2026-0002", "CVE-2026-0001"]);
    assert.deepEqual(index.search("widget portal sql", 10).ids, ["CVE-2026-0002"]);
    assert.deepEqual(index.search("widget gadget", 10), { terms: ["widget", "gadget"], total: 0, ids: [] });
  });

  it("breaks a tie of publication time by the higher CVE number", () => {
    assert.deepEqual(index.search("in", 10).ids, [
      "CVE-2026-0002",
      "CVE-2026-10000",
      "CVE-2026-0003",
      "CVE-2026-0001",
    ]);
    assert.ok(compareRank(docs[3]!, docs[2]!) < 0, "CVE-2026-10000 ranks above CVE-2026-0003");
  });

  it("matches ids, CWE ids and vendor or product names", () => {
    assert.deepEqual(index.search("CVE-2026-0003", 10).ids, ["CVE-2026-0003"]);
    assert.deepEqual(index.search("cwe-79", 10).ids, ["CVE-2026-10000", "CVE-2026-0001"]);
    assert.deepEqual(index.search("widget_portal", 10).ids, ["CVE-2026-0002", "CVE-2026-0001"]);
    assert.deepEqual(index.search("log4j", 10).ids, ["CVE-2026-0003"]);
  });

  it("asks for a punctuated word whole when indexed, else for its parts", () => {
    assert.deepEqual(index.search("cross-site", 10).ids, ["CVE-2026-0001"]);
    assert.deepEqual(index.search("cross site", 10).ids, ["CVE-2026-10000", "CVE-2026-0001"]);
    assert.deepEqual(index.search("site-cross", 10).ids, ["CVE-2026-10000", "CVE-2026-0001"]);
    assert.deepEqual(index.termsOf("site-cross"), ["site", "cross"]);
  });

  it("is case-insensitive and ignores repeated words", () => {
    assert.deepEqual(index.search("APACHE apache Apache", 10), {
      terms: ["apache"],
      total: 1,
      ids: ["CVE-2026-0003"],
    });
  });

  it("counts every match but returns at most limit, the best ones", () => {
    const result = index.search("cve", 2);
    assert.equal(result.total, 4);
    assert.deepEqual(result.ids, ["CVE-2026-0002", "CVE-2026-10000"]);
  });

  it("finds nothing for an unknown word or a query without words", () => {
    assert.equal(index.search("nosuchword", 10).total, 0);
    assert.deepEqual(index.search("!!!", 10), { terms: [], total: 0, ids: [] });
  });

  it("reports its size", () => {
    assert.equal(index.size, 4);
    assert.ok(index.vocabulary > 20);
    assert.equal(CveSearchIndex.build([]).search("anything", 5).total, 0);
  });

  it("estimates its memory from what it holds: more documents and longer words cost more", () => {
    assert.ok(CveSearchIndex.build([]).approximateBytes() < 100);
    const doc = (i: number, text: string): IndexDoc => ({
      id: `CVE-2026-${1000 + i}`,
      published: "2026-11-01T00:00:00.000Z",
      text,
    });
    const small = CveSearchIndex.build([doc(0, "overflow in parser")]);
    const more = CveSearchIndex.build(
      Array.from({ length: 100 }, (_, i) => doc(i, `overflow in parser${i}`)),
    );
    // Each of the 100 documents adds an id (a Float64) and a token of its own: a 4-byte reference to its one
    // document, and at least the byte that tells it from the token before.
    assert.ok(more.approximateBytes() > small.approximateBytes() + 100 * (8 + 4 + 1));
    // The same words in Cyrillic: two bytes a character.
    const latin = CveSearchIndex.build([doc(0, "abcdefghijklmnopqrstuvwxyz")]).approximateBytes();
    const cyrillic = CveSearchIndex.build([doc(0, "абвгдежзийклмнопрстуфхцчшщ")]).approximateBytes();
    assert.equal(cyrillic - latin, 26);
  });

  it("ranks and returns ids and publication times of any shape as compareRank orders them", () => {
    const odd: IndexDoc[] = [
      { id: "CVE-2026-0001", published: "2026-11-01T00:00:00.000Z", text: "shared one" },
      { id: "CVE-2026-00002", published: "2026-11-01T00:00:00.000Z", text: "shared two" },
      { id: "GHSA-abcd-efgh", published: "2026-11-01T00:00:00Z", text: "shared three" },
      { id: "CVE-2026-10000", published: "2026-11-01T00:00:00Z", text: "shared four" },
      { id: "CVE-2025-99999", published: "2026-11-02T00:00:00.000+00:00", text: "shared five" },
      { id: "CVE-2026-0003", published: "2026-10-31T23:59:59.999Z", text: "shared six" },
      { id: "cve-2026-0004", published: "2026-11-01T00:00:00.000Z", text: "shared seven" },
    ];
    const index = CveSearchIndex.build(odd);
    const ranked = [...odd].sort(compareRank).map((d) => d.id);
    assert.deepEqual(ranked.slice(0, 3), ["CVE-2025-99999", "GHSA-abcd-efgh", "CVE-2026-10000"]);
    assert.deepEqual(index.search("shared", 10).ids, ranked);
    assert.deepEqual(index.search("three", 10).ids, ["GHSA-abcd-efgh"]);
    assert.deepEqual(index.search("two", 10).ids, ["CVE-2026-00002"]);
  });

  it("builds one index a builder", () => {
    const builder = new CveSearchIndexBuilder();
    builder.add(docs[0] as IndexDoc);
    assert.equal(builder.finish().search("widget", 5).total, 1);
    assert.throws(() => builder.finish(), /finish twice/);
    assert.throws(() => builder.add(docs[1] as IndexDoc), /add after finish/);
  });

  it("agrees with a linear scan on random documents and queries", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const vocabulary = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const pick = () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!;
    const many: IndexDoc[] = Array.from({ length: 3000 }, (_, i) => ({
      id: `CVE-2026-${String(i).padStart(5, "0")}`,
      published: new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 200) * 86_400_000).toISOString(),
      text: Array.from({ length: 3 + Math.floor(random() * 12) }, pick).join(" "),
    }));
    const big = CveSearchIndex.build(many);
    const ranked = [...many].sort(compareRank);
    for (let q = 0; q < 200; q++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 3) }, pick);
      const expected = ranked.filter((d) => {
        const tokens = indexTokens(d.text);
        return words.every((w) => tokens.has(w));
      });
      const result = big.search(words.join(" "), 25);
      assert.equal(result.total, expected.length, words.join(" "));
      assert.deepEqual(
        result.ids,
        expected.slice(0, 25).map((d) => d.id),
        words.join(" "),
      );
    }
  });
});
