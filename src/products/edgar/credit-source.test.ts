// Which filing a value is credited to: SEC frames the most recently filed copy of a fact, which
// can be a proxy statement, an amendment or next year's 10-Q; the value belongs to the periodic report that
// first reported it. Run on excerpts of real companyfacts (recordings/companyfacts-nvda, companyfacts-tsla).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type CompanyFactsDocument, deriveFinancials, type PeriodEntry } from "./derive-financials.ts";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";

function recorded(cik: string) {
  const file = path.join(EDGAR_RECORDINGS_DIR, `CIK${cik}-companyfacts.json`);
  return deriveFinancials(JSON.parse(fs.readFileSync(file, "utf8")) as CompanyFactsDocument);
}

function sources(entries: PeriodEntry[]) {
  return Object.fromEntries(entries.map((e) => [e.period, [e.value, e.form, e.accn, e.filed]]));
}

const NVDA_10K_FY2024 = ["10-K", "0001045810-24-000029", "2024-02-21"];
const NVDA_10K_FY2025 = ["10-K", "0001045810-25-000023", "2025-02-26"];

describe("crediting a value to the report that first filed it (NVIDIA's companyfacts)", () => {
  const nvda = recorded("0001045810");

  it("net income framed on the proxy statement is credited to the 10-Ks, values unchanged", () => {
    assert.deepEqual(sources(nvda.facts.netIncome!.annual), {
      CY2023: [29_760_000_000, ...NVDA_10K_FY2024],
      CY2024: [72_880_000_000, ...NVDA_10K_FY2025],
    });
  });

  it("year-end balances repeated in next year's Q1 10-Q are credited to the 10-K", () => {
    assert.deepEqual(sources(nvda.facts.totalAssets!.annual), {
      CY2023: [65_728_000_000, ...NVDA_10K_FY2024],
      CY2024: [111_601_000_000, ...NVDA_10K_FY2025],
    });
    // The quarter the frame names keeps the 10-K too; a balance the 10-Q reported first stays with it.
    assert.deepEqual(sources(nvda.facts.totalAssets!.quarterly), {
      CY2023Q4: [65_728_000_000, ...NVDA_10K_FY2024],
      CY2024Q4: [111_601_000_000, ...NVDA_10K_FY2025],
      CY2025Q1: [125_254_000_000, "10-Q", "0001045810-25-000116", "2025-05-28"],
    });
    assert.deepEqual(sources(nvda.facts.cash!.annual), { CY2024: [8_589_000_000, ...NVDA_10K_FY2025] });
  });

  it("no value anywhere is credited to a proxy statement or to a later report", () => {
    for (const series of Object.values(nvda.facts)) {
      for (const entry of [...series.annual, ...series.quarterly]) {
        assert.match(entry.form, /^10-[KQ]$/, `${series.label} ${entry.period}`);
      }
    }
  });

  it("highlights name the 10-K and its fiscal year", () => {
    const highlights = Object.fromEntries(
      nvda.highlights.map((h) => [h.tag, [h.value, h.form, h.filed, h.fy, h.fp, h.period.calendar]]),
    );
    assert.deepEqual(highlights, {
      Revenues: [130_497_000_000, "10-K", "2025-02-26", 2025, "FY", "CY2024"],
      NetIncomeLoss: [72_880_000_000, "10-K", "2025-02-26", 2025, "FY", "CY2024"],
      CashAndCashEquivalentsAtCarryingValue: [8_589_000_000, "10-K", "2025-02-26", 2025, "FY", "CY2024"],
      Assets: [111_601_000_000, "10-K", "2025-02-26", 2025, "FY", "CY2024"],
      Liabilities: [32_274_000_000, "10-K", "2025-02-26", 2025, "FY", "CY2024"],
    });
  });
});

describe("crediting a value framed on an amendment (Tesla's real companyfacts excerpt)", () => {
  it("the cover-page share count goes to the original 10-K, not the 10-K/A that repeats it", () => {
    const tesla = recorded("0001318605");
    const quarterly = sources(tesla.facts.sharesOutstanding!.quarterly);
    assert.deepEqual(quarterly.CY2021Q4, [1_033_507_611, "10-K", "0000950170-22-000796", "2022-02-07"]);
    assert.deepEqual(quarterly.CY2022Q3, [3_157_752_449, "10-Q", "0000950170-22-019867", "2022-10-24"]);
  });
});
