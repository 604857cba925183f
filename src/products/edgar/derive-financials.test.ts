import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  type CompanyFactsDocument,
  DEDUPE_RULE,
  type DerivedFinancials,
  deriveFinancials,
  type PeriodEntry,
  type XbrlFact,
} from "./derive-financials.ts";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";

const M = 1_000_000;

function recorded(cik: string): DerivedFinancials {
  const file = path.join(EDGAR_RECORDINGS_DIR, `CIK${cik}-companyfacts.json`);
  return deriveFinancials(JSON.parse(fs.readFileSync(file, "utf8")) as CompanyFactsDocument);
}

/** `{ CY2024: 391000 }` in millions, with a `d` suffix on derived values. */
function series(entries: PeriodEntry[], unit = M): Record<string, string | number> {
  return Object.fromEntries(
    entries.map((e) => [e.period, e.derived ? `${e.value / unit}d` : e.value / unit]),
  );
}

describe("financials of a September fiscal year (Apple-like recording)", () => {
  const apple = recorded("0000320193");

  it("keeps the last 10 calendar years of revenue, one value each", () => {
    const revenue = apple.facts.revenue!;
    assert.equal(revenue.unit, "USD");
    assert.equal(revenue.taxonomy, "us-gaap");
    assert.deepEqual(revenue.xbrlTags, ["RevenueFromContractWithCustomerExcludingAssessedTax"]);
    // FY2014 and FY2015 fall out of the window CY2016..CY2025.
    assert.deepEqual(series(revenue.annual), {
      CY2016: 216000,
      CY2017: 229000,
      CY2018: 266000,
      CY2019: 260000,
      CY2020: 275000,
      CY2021: 366000,
      // FY2022 was restated (394000 → 394100) in a later 10-K, whose copy SEC framed (the latest filed).
      CY2022: 394100,
      // FY2023 was restated (383000 → 383300) in the FY2024 10-K, which SEC framed.
      CY2023: 383300,
      CY2024: 391000,
      CY2025: 416000,
    });
    const fy2025 = revenue.annual.at(-1)!;
    assert.deepEqual(
      { start: fy2025.start, end: fy2025.end, form: fy2025.form, accn: fy2025.accn, filed: fy2025.filed },
      {
        start: "2024-09-29",
        end: "2025-09-27",
        form: "10-K",
        accn: "0000320193-25-000079",
        filed: "2025-10-31",
      },
    );
  });

  it("labels fiscal quarters by calendar quarter and derives fiscal Q4 as annual minus nine months", () => {
    assert.deepEqual(series(apple.facts.revenue!.quarterly), {
      CY2023Q4: 119600,
      // Restated in the next year's Q2 10-Q (90800 → 90750) and framed there.
      CY2024Q1: 90750,
      CY2024Q2: 85800,
      // Fiscal Q4 2024 (2024-06-30..2024-09-28): 391000 - 296200 (nine months to 2024-06-29).
      CY2024Q3: "94800d",
      CY2024Q4: 124300,
      CY2025Q1: 95400,
      CY2025Q2: 94000,
      // Fiscal Q4 2025: 416000 - 313700.
      CY2025Q3: "102300d",
    });
    const q4 = apple.facts.revenue!.quarterly.find((e) => e.period === "CY2025Q3")!;
    assert.deepEqual(
      { start: q4.start, end: q4.end, form: q4.form, accn: q4.accn, derived: q4.derived },
      { start: "2025-06-29", end: "2025-09-27", form: "10-K", accn: "0000320193-25-000079", derived: true },
    );
    // Net income: 112000 - 84500.
    assert.equal(apple.facts.netIncome!.quarterly.find((e) => e.period === "CY2025Q3")?.value, 27500 * M);
  });

  it("turns year-to-date cash flows into quarters by subtraction", () => {
    // Operating cash flow: Q1 29900; 6 months 53900; 9 months 81800; year 111500.
    assert.deepEqual(series(apple.facts.operatingCashFlow!.quarterly), {
      CY2024Q4: 29900,
      CY2025Q1: "24000d",
      CY2025Q2: "27900d",
      CY2025Q3: "29700d",
    });
    // Capital expenditure: 2900; 6000; 9500; 12700.
    assert.deepEqual(series(apple.facts.capitalExpenditure!.quarterly), {
      CY2024Q4: 2900,
      CY2025Q1: "3100d",
      CY2025Q2: "3500d",
      CY2025Q3: "3200d",
    });
  });

  it("never derives per-share values", () => {
    const eps = apple.facts.epsDiluted!;
    assert.equal(eps.unit, "USD/shares");
    assert.deepEqual(series(eps.quarterly, 1), { CY2024Q4: 2.4, CY2025Q1: 1.65, CY2025Q2: 1.57 });
    assert.deepEqual(series(eps.annual, 1), { CY2024: 6.08, CY2025: 7.46 });
  });

  it("reads balances at each date reported, the fiscal year end as the annual value, never by subtraction", () => {
    const assets = apple.facts.totalAssets!;
    assert.deepEqual(series(assets.annual), { CY2023: 352600, CY2024: 365000, CY2025: 359200 });
    assert.deepEqual(series(assets.quarterly), {
      CY2023Q3: 352600,
      CY2024Q3: 365000,
      CY2024Q4: 344100,
      CY2025Q1: 331200,
      CY2025Q2: 331500,
      // The fiscal year end balance itself, not the annual figure minus anything.
      CY2025Q3: 359200,
    });
    assert.ok(assets.quarterly.every((e) => !e.derived && e.start === null));
  });

  it("takes shares outstanding from the cover pages, the annual value from the annual report", () => {
    const shares = apple.facts.sharesOutstanding!;
    assert.equal(shares.unit, "shares");
    assert.equal(shares.taxonomy, "dei");
    assert.deepEqual(series(shares.annual, 1), { CY2024: 15115823000, CY2025: 14776353000 });
    // Cover dates 2024-10-18, 2025-01-17 (nearest quarter end 2024-12-31), 2025-04-18, 2025-07-18, 2025-10-17.
    assert.deepEqual(Object.keys(series(shares.quarterly)), [
      "CY2024Q3",
      "CY2024Q4",
      "CY2025Q1",
      "CY2025Q2",
      "CY2025Q3",
    ]);
  });

  it("reports each item's latest period end, the items available, and highlights", () => {
    assert.equal(apple.latestPeriodEnd.revenue, "2025-09-27");
    assert.equal(apple.latestPeriodEnd.sharesOutstanding, "2025-10-17");
    assert.ok(apple.availableTags.includes("longTermDebt"));
    assert.ok(!apple.availableTags.includes("inventory"));
    assert.equal(apple.facts.inventory, undefined);
    const revenue = apple.highlights.find(
      (h) => h.tag === "RevenueFromContractWithCustomerExcludingAssessedTax",
    )!;
    assert.deepEqual(revenue, {
      tag: "RevenueFromContractWithCustomerExcludingAssessedTax",
      taxonomy: "us-gaap",
      label: "Revenue from Contract with Customer, Excluding Assessed Tax",
      unit: "USD",
      value: 416000 * M,
      period: { calendar: "CY2025", start: "2024-09-29", end: "2025-09-27", instant: false },
      end: "2025-09-27",
      filed: "2025-10-31",
      form: "10-K",
      fy: 2025,
      fp: "FY",
    });
    assert.ok(apple.highlights.every((h) => Number.isInteger(h.value)));
    assert.deepEqual(
      apple.highlights.map((h) => h.tag),
      [
        "RevenueFromContractWithCustomerExcludingAssessedTax",
        "GrossProfit",
        "OperatingIncomeLoss",
        "NetIncomeLoss",
        "NetCashProvidedByUsedInOperatingActivities",
        "CashAndCashEquivalentsAtCarryingValue",
        "Assets",
        "Liabilities",
        "StockholdersEquity",
        "EntityCommonStockSharesOutstanding",
      ],
    );
  });
});

describe("financials of a June fiscal year (Microsoft-like recording)", () => {
  const msft = recorded("0000789019");

  it("puts a fiscal year ending June 30 in the calendar year it mostly covers, framed or not", () => {
    // FY2025 (2024-07-01..2025-06-30) has no frame in the recording: the end date gives CY2024.
    assert.deepEqual(series(msft.facts.revenue!.annual), {
      CY2021: 198300,
      CY2022: 211900,
      CY2023: 245100,
      CY2024: 281700,
    });
  });

  it("derives every quarter of a fiscal year reported only as year-to-date totals", () => {
    assert.deepEqual(series(msft.facts.revenue!.quarterly), {
      CY2023Q3: 56500,
      CY2023Q4: "62000d", // 118500 - 56500
      CY2024Q1: "61900d", // 180400 - 118500
      CY2024Q2: "64700d", // 245100 - 180400
      CY2024Q3: 65600,
      CY2024Q4: 69600,
      CY2025Q1: 70100,
      CY2025Q2: "76400d", // 281700 - 205300
    });
    assert.deepEqual(series(msft.facts.operatingCashFlow!.quarterly), {
      CY2024Q3: 34200,
      CY2024Q4: "22300d", // 56500 - 34200
      CY2025Q1: "37000d", // 93500 - 56500
      CY2025Q2: "42700d", // 136200 - 93500
    });
  });

  it("ends a tag the company stopped using in the year it stopped", () => {
    const interest = msft.facts.interestExpense!;
    assert.deepEqual(series(interest.annual), { CY2019: 2600, CY2020: 2300, CY2021: 2100 });
    assert.deepEqual(interest.quarterly, []);
    assert.equal(msft.latestPeriodEnd.interestExpense, "2022-06-30");
    // Reported for fiscal 2013 only: outside the window, so not in facts, but still listed as available.
    assert.equal(msft.facts.sellingGeneralAdministrative, undefined);
    assert.equal(msft.latestPeriodEnd.sellingGeneralAdministrative, "2013-06-30");
    assert.ok(msft.availableTags.includes("sellingGeneralAdministrative"));
  });

  it("reads June balances as the annual value of the fiscal year they close", () => {
    assert.deepEqual(series(msft.facts.totalAssets!.annual), { CY2023: 512200, CY2024: 619000 });
    assert.deepEqual(series(msft.facts.sharesOutstanding!.annual, 1), {
      CY2023: 7433038381,
      CY2024: 7433166379,
    });
    assert.deepEqual(series(msft.facts.epsDiluted!.quarterly, 1), {
      CY2024Q3: 3.3,
      CY2024Q4: 3.23,
      CY2025Q1: 3.46,
    });
  });
});

describe("financials of a December fiscal year with a revenue tag change (J&J-like recording)", () => {
  const jnj = recorded("0000200406");

  it("uses the old revenue tag through the year it stopped, the new one after", () => {
    const revenue = jnj.facts.revenue!;
    assert.deepEqual(revenue.xbrlTags, [
      "RevenueFromContractWithCustomerExcludingAssessedTax",
      "SalesRevenueNet",
    ]);
    // The 2018 10-K repeats 2016 and 2017 under the new tag (71890, 76450): the values as reported under the
    // old tag are kept for the years it was in use.
    assert.deepEqual(series(revenue.annual), {
      CY2015: 70100,
      CY2016: 71900,
      CY2017: 76500,
      CY2018: 81600,
      CY2019: 82100,
    });
    assert.deepEqual(
      revenue.annual.map((e) => e.tag),
      [
        "SalesRevenueNet",
        "SalesRevenueNet",
        "SalesRevenueNet",
        "RevenueFromContractWithCustomerExcludingAssessedTax",
        "RevenueFromContractWithCustomerExcludingAssessedTax",
      ],
    );
  });

  it("derives each fiscal Q4 within the tag then in use", () => {
    assert.deepEqual(series(revenue(jnj).quarterly), {
      CY2017Q1: 17800,
      CY2017Q2: 18800,
      CY2017Q3: 19700, // not the 19650 repeated under the new tag
      CY2017Q4: "20200d", // 76500 - 56300
      CY2018Q1: 20000,
      CY2018Q2: 20800,
      CY2018Q3: 20300,
      CY2018Q4: "20500d", // 81600 - 61100
      CY2019Q1: 20000,
      CY2019Q2: 20600,
      CY2019Q3: 20700,
      CY2019Q4: "20800d", // 82100 - 61300
    });
    assert.equal(revenue(jnj).quarterly.length, 12);
  });

  it("turns half-year and nine-month totals into quarters", () => {
    // Net income 2018: Q1 4400; six months 8300; nine months 11600; year 15300.
    assert.deepEqual(series(jnj.facts.netIncome!.quarterly), {
      CY2018Q1: 4400,
      CY2018Q2: "3900d",
      CY2018Q3: "3300d",
      CY2018Q4: "3700d",
    });
    // Dividends paid 2018: 2400; 4700; 7100; 9500.
    assert.deepEqual(series(jnj.facts.dividendsPaid!.quarterly), {
      CY2018Q1: 2400,
      CY2018Q2: "2300d",
      CY2018Q3: "2400d",
      CY2018Q4: "2400d",
    });
  });

  it("reads a 53-week year as annual and balances at 52/53-week year ends", () => {
    assert.equal(revenue(jnj).annual[0]?.start, "2014-12-29");
    assert.equal(revenue(jnj).annual[0]?.end, "2016-01-03");
    assert.deepEqual(series(jnj.facts.totalAssets!.annual), {
      CY2017: 157300,
      CY2018: 152900,
      CY2019: 157700,
    });
    assert.equal(jnj.facts.totalAssets!.quarterly.find((e) => e.period === "CY2018Q4")?.value, 152900 * M);
  });
});

function revenue(financials: DerivedFinancials) {
  return financials.facts.revenue!;
}

/** A synthetic company: `years` fiscal years ending December 31, each reported as Q1, H1, 9M and FY. */
function syntheticCompany(years: number, lastYear = 2025): CompanyFactsDocument {
  const facts: XbrlFact[] = [];
  for (let year = lastYear - years + 1; year <= lastYear; year++) {
    const filed = `${year + 1}-02-15`;
    const q = (n: number) => (year - 2000) * 100 + n; // quarter n of the year is worth (year-2000)*100 + n
    facts.push({
      start: `${year}-01-01`,
      end: `${year}-03-31`,
      val: q(1),
      accn: `q1-${year}`,
      form: "10-Q",
      filed,
    });
    facts.push({
      start: `${year}-01-01`,
      end: `${year}-06-30`,
      val: q(1) + q(2),
      accn: `q2-${year}`,
      form: "10-Q",
      filed,
    });
    facts.push({
      start: `${year}-01-01`,
      end: `${year}-09-30`,
      val: q(1) + q(2) + q(3),
      accn: `q3-${year}`,
      form: "10-Q",
      filed,
    });
    facts.push({
      start: `${year}-01-01`,
      end: `${year}-12-31`,
      val: q(1) + q(2) + q(3) + q(4),
      accn: `fy-${year}`,
      form: "10-K",
      filed,
    });
  }
  return {
    cik: 1,
    entityName: "Synthetic",
    facts: { "us-gaap": { Revenues: { label: "Revenues", units: { USD: facts } } } },
  };
}

describe("the financials windows and fallbacks", () => {
  it("keeps exactly the last 10 years and 12 quarters", () => {
    const derived = deriveFinancials(syntheticCompany(15));
    const revenue = derived.facts.revenue!;
    assert.deepEqual(
      revenue.annual.map((e) => e.period),
      Array.from({ length: 10 }, (_, i) => `CY${2016 + i}`),
    );
    // 2025: 2501 + 2502 + 2503 + 2504.
    assert.equal(revenue.annual.at(-1)?.value, 10010);
    assert.deepEqual(
      revenue.quarterly.map((e) => `${e.period}=${e.value}`),
      [2023, 2024, 2025].flatMap((y) => [1, 2, 3, 4].map((q) => `CY${y}Q${q}=${(y - 2000) * 100 + q}`)),
    );
    assert.deepEqual(
      revenue.quarterly.map((e) => e.derived),
      [false, true, true, true, false, true, true, true, false, true, true, true],
    );
  });

  it("bridges a tag switch in the middle of a fiscal year", () => {
    // Old tag for Q1..9M 2018, new tag from the 2018 annual report on: Q4 2018 mixes them.
    const doc: CompanyFactsDocument = {
      facts: {
        "us-gaap": {
          SalesRevenueNet: {
            units: {
              USD: [
                { start: "2017-01-01", end: "2017-12-31", val: 400, form: "10-K", filed: "2018-02-01" },
                { start: "2018-01-01", end: "2018-03-31", val: 100, form: "10-Q", filed: "2018-05-01" },
                { start: "2018-01-01", end: "2018-09-30", val: 330, form: "10-Q", filed: "2018-11-01" },
              ],
            },
          },
          Revenues: {
            units: {
              USD: [
                { start: "2018-01-01", end: "2018-12-31", val: 450, form: "10-K", filed: "2019-02-01" },
                { start: "2019-01-01", end: "2019-12-31", val: 500, form: "10-K", filed: "2020-02-01" },
              ],
            },
          },
        },
      },
    };
    const revenue = deriveFinancials(doc).facts.revenue!;
    assert.deepEqual(series(revenue.annual, 1), { CY2017: 400, CY2018: 450, CY2019: 500 });
    // Q4 = 450 (new tag) - 330 (old tag); Q1 to nine months is two quarters, which no subtraction can split.
    assert.deepEqual(series(revenue.quarterly, 1), { CY2018Q1: 100, CY2018Q4: "120d" });
  });

  it("prefers the first-listed tag among tags still in use", () => {
    const doc: CompanyFactsDocument = {
      facts: {
        "us-gaap": {
          Revenues: {
            units: {
              USD: [{ start: "2024-01-01", end: "2024-12-31", val: 1000, form: "10-K", filed: "2025-02-01" }],
            },
          },
          RevenueFromContractWithCustomerExcludingAssessedTax: {
            units: {
              USD: [{ start: "2024-01-01", end: "2024-12-31", val: 900, form: "10-K", filed: "2025-02-01" }],
            },
          },
        },
      },
    };
    assert.equal(deriveFinancials(doc).facts.revenue?.annual[0]?.value, 1000);
  });

  it("ignores malformed facts and units of another kind", () => {
    const doc = {
      facts: {
        "us-gaap": {
          Revenues: {
            units: {
              USD: [
                { start: "2024-01-01", end: "2024-12-31", val: "12" },
                { start: "2024-01-01", end: "not a date", val: 5 },
                { end: "2024-12-31", val: 7 },
                { start: "2024-01-01", end: "2024-12-31", val: 42, form: "10-K", filed: "2025-01-30" },
              ],
              shares: [{ start: "2024-01-01", end: "2024-12-31", val: 99 }],
            },
          },
        },
      },
    } as unknown as CompanyFactsDocument;
    const derived = deriveFinancials(doc);
    assert.deepEqual(series(derived.facts.revenue!.annual, 1), { CY2024: 42 });
    assert.deepEqual(deriveFinancials({}).facts, {});
  });

  it("states its dedupe rule", () => {
    assert.match(DEDUPE_RULE, /One value per calendar period/);
    assert.match(DEDUPE_RULE, /fiscal Q4 = annual minus the first nine months/);
    assert.match(DEDUPE_RULE, /stopped using/);
  });
});
