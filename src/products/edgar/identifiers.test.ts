import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  accessionFilerCik,
  accessionYear,
  filingUrls,
  normaliseAccession,
  normaliseCik,
  normaliseTicker,
} from "./identifiers.ts";

describe("EDGAR identifiers", () => {
  it("pads CIKs to 10 digits and accepts the CIK prefix", () => {
    for (const raw of ["320193", "0000320193", "CIK0000320193", "cik320193", " 320193 "])
      assert.equal(normaliseCik(raw), "0000320193", raw);
    for (const raw of ["", "0", "0000000000", "12345678901", "32O193", "-1", "1e5", "CIK"])
      assert.equal(normaliseCik(raw), undefined, raw);
  });

  it("writes tickers as SEC lists them", () => {
    assert.equal(normaliseTicker("aapl"), "AAPL");
    assert.equal(normaliseTicker("brk.b"), "BRK-B");
    assert.equal(normaliseTicker(" BRK-B "), "BRK-B");
    for (const raw of ["", "-X", "A B", "TOOLONGTICKER1", "AAPL$"])
      assert.equal(normaliseTicker(raw), undefined, raw);
  });

  it("accepts accession numbers with or without dashes", () => {
    assert.equal(normaliseAccession("0000320193-24-000123"), "0000320193-24-000123");
    assert.equal(normaliseAccession("000032019324000123"), "0000320193-24-000123");
    assert.equal(normaliseAccession(" 000032019324000123 "), "0000320193-24-000123");
    for (const raw of [
      "",
      "0000320193-24-00012",
      "0000320193-2400-0123",
      "00003201932400012x",
      "0000320193_24_000123",
    ])
      assert.equal(normaliseAccession(raw), undefined, raw);
  });

  it("reads who submitted an accession and its year", () => {
    assert.equal(accessionFilerCik("0001193125-25-230145"), "0001193125");
    assert.equal(accessionYear("0001193125-25-230145"), 2025);
    assert.equal(accessionYear("0000950123-99-001234"), 1999);
  });

  it("links a filing in the company's own Archives folder", () => {
    const urls = filingUrls("0000320193", "0001193125-25-230145", "d912345d8k.htm", {
      isXBRL: true,
      isInlineXBRL: true,
    });
    assert.deepEqual(urls, {
      indexUrl:
        "https://www.sec.gov/Archives/edgar/data/320193/000119312525230145/0001193125-25-230145-index.htm",
      filingUrl: "https://www.sec.gov/Archives/edgar/data/320193/000119312525230145/d912345d8k.htm",
      documentsUrl: "https://www.sec.gov/Archives/edgar/data/320193/000119312525230145/",
      secViewerUrl:
        "https://www.sec.gov/ix?doc=/Archives/edgar/data/320193/000119312525230145/d912345d8k.htm",
    });
    const plain = filingUrls("0000200406", "0000200406-20-000004", null, {
      isXBRL: false,
      isInlineXBRL: false,
    });
    assert.equal(
      plain.filingUrl,
      "https://www.sec.gov/Archives/edgar/data/200406/000020040620000004/0000200406-20-000004.txt",
    );
    assert.equal(plain.secViewerUrl, null);
    const xbrl = filingUrls("0000200406", "0000200406-20-000010", "form10-k.htm", {
      isXBRL: true,
      isInlineXBRL: false,
    });
    assert.match(
      xbrl.secViewerUrl ?? "",
      /cgi-bin\/viewer\?action=view&cik=200406&accession_number=0000200406-20-000010/,
    );
  });
});
