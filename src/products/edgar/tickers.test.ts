import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";
import { normaliseName, normaliseTickerFile, TickerDirectory } from "./tickers.ts";

const entries = normaliseTickerFile(
  JSON.parse(fs.readFileSync(path.join(EDGAR_RECORDINGS_DIR, "company_tickers.json"), "utf8")),
);
const directory = new TickerDirectory(entries);
const search = (q: string, limit = 10) => directory.search(q, limit).map((h) => `${h.ticker}:${h.matchedBy}`);

describe("SEC ticker file", () => {
  it("reads entries in SEC's order with 10-digit CIKs", () => {
    assert.equal(entries.length, 20);
    assert.deepEqual(entries[2], { cik: "0000320193", ticker: "AAPL", name: "Apple Inc." });
    assert.equal(directory.ticker("BRK-B")?.cik, "0001067983");
    assert.deepEqual(
      directory.tickersOf("0001652044").map((e) => e.ticker),
      ["GOOGL", "GOOG"],
    );
    assert.throws(() => normaliseTickerFile([]), /not a JSON object/);
    assert.deepEqual(
      normaliseTickerFile({ "0": { cik_str: "x", ticker: "A" }, "1": { cik_str: 5, ticker: "" } }),
      [],
    );
  });

  it("normalises names for matching", () => {
    assert.equal(normaliseName("JOHNSON & JOHNSON"), "johnson johnson");
    assert.equal(normaliseName("  Société Générale, S.A. "), "societe generale s a");
  });
});

describe("company search", () => {
  it("puts the exact ticker first, then name prefixes, then all words", () => {
    // META is an exact ticker; "Meta Materials" only starts with the word.
    assert.deepEqual(search("meta"), ["META:ticker", "MMAT:namePrefix"]);
    assert.deepEqual(search("apple"), ["AAPL:namePrefix", "APLE:namePrefix"]);
    assert.deepEqual(search("hospitality apple"), ["APLE:allWords"]);
    assert.deepEqual(search("johnson"), ["JNJ:namePrefix", "JOUT:namePrefix"]);
    // Word starts only: "apple" is not at the start of a word of "Pineapple Energy".
    assert.ok(!search("apple").includes("PEGY:allWords"));
    assert.deepEqual(search("pine"), ["PEGY:namePrefix"]);
  });

  it("finds a share class by ticker and a company once", () => {
    assert.deepEqual(search("brk.a"), ["BRK-A:ticker"]);
    assert.deepEqual(search("berkshire"), ["BRK-B:namePrefix"]);
    assert.deepEqual(search("GOOG"), ["GOOG:ticker"]);
    assert.deepEqual(search("alphabet"), ["GOOGL:namePrefix"]);
  });

  it("finds a company by CIK and honours the limit", () => {
    assert.deepEqual(search("320193"), ["AAPL:cik"]);
    assert.deepEqual(search("CIK0000789019"), ["MSFT:cik"]);
    assert.deepEqual(search("a", 3), ["AAPL:namePrefix", "AMZN:namePrefix", "GOOGL:namePrefix"]);
    assert.deepEqual(search("no such company zz"), []);
  });
});
