import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { foldText, freeText, lookupQuery, normaliseQuery, queryHash, searchWords } from "./query.ts";

describe("gov query text", () => {
  it("folds case and diacritics the way German, Polish, Czech and French titles need", () => {
    assert.equal(foldText("Bürgerliches  GESETZBUCH"), "burgerliches gesetzbuch");
    assert.equal(foldText("Straßenverkehrsgesetz"), "strassenverkehrsgesetz");
    assert.equal(foldText("Ustawa o ochronie ŁĄK"), "ustawa o ochronie lak");
    assert.equal(foldText("Zákon o účetnictví"), "zakon o ucetnictvi");
    assert.equal(foldText("Œuvre"), "oeuvre");
  });

  it("keeps Japanese text (no case, no marks to fold) and composes it to NFC", () => {
    const decomposed = "民法".normalize("NFD");
    assert.equal(foldText(decomposed), "民法");
    assert.deepEqual(searchWords("個人情報の保護に関する法律"), ["個人情報の保護に関する法律"]);
  });

  it("gives equal questions one hash, different ones different hashes", () => {
    assert.equal(queryHash("Datenschutz Gesetz"), queryHash("  datenschutz   GESETZ "));
    assert.equal(queryHash("Zákon"), queryHash("zakon"));
    assert.notEqual(queryHash("privacy act"), queryHash("privacy"));
    assert.match(queryHash("x"), /^[0-9a-f]{12}$/);
  });

  it("shows the query back NFC, trimmed and with spaces collapsed, case kept", () => {
    assert.equal(normaliseQuery("  Privacy\t Act \n"), "Privacy Act");
  });
});

describe("free text parameters", () => {
  const q = freeText("q", 20);
  const issues = (value: unknown) => {
    const result = q.safeParse(value);
    return result.success ? [] : result.error.issues.map((i) => i.message);
  };

  it("refuses NUL, line breaks and bidirectional overrides, naming the parameter", () => {
    assert.match(issues("abc\u0000def")[0] ?? "", /q must not contain control characters/);
    assert.match(issues("evil\u202egnp")[0] ?? "", /control characters/);
    assert.match(issues("a\nb")[0] ?? "", /control characters/);
  });

  it("refuses empty, punctuation-only and over-long text", () => {
    assert.match(issues("   ")[0] ?? "", /q must not be empty/);
    assert.match(issues("!!!")[0] ?? "", /letter or digit/);
    assert.match(issues("x".repeat(21))[0] ?? "", /at most 20 characters/);
    assert.deepEqual(issues("  data  protection "), []);
  });
});

describe("q or id, exactly one", () => {
  const schema = lookupQuery({
    id: {
      describe: "an 8-digit number",
      parse: (raw) => (/^\d{8}$/.test(raw) ? { id: raw } : { error: "id must be 8 digits, e.g. 10001622" }),
    },
    qDescribe: "title words",
  });
  const errors = (value: unknown) => {
    const result = schema.safeParse(value);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("takes either q or id", () => {
    assert.deepEqual(schema.parse({ q: " Datenschutz " }), { q: "Datenschutz" });
    assert.deepEqual(schema.parse({ id: " 10001622 " }), { id: "10001622" });
  });

  it("refuses neither, both, and an id of the wrong shape, naming the parameter", () => {
    assert.deepEqual(errors({}), ["q: give q (a search) or id (one item)"]);
    assert.deepEqual(errors({ q: "x", id: "10001622" }), ["id: give either q or id, not both"]);
    assert.deepEqual(errors({ id: "1234" }), ["id: id must be 8 digits, e.g. 10001622"]);
  });
});
