// Financials for an Apple-size companyfacts document: the derivation done at warm time, and the answer served
// from the precomputed cache document through the product handler. The baseline, measured in the same run, is
// JSON.parse of the same companyfacts text (what any consumer of the raw document pays first).
//
//   node_modules/.bin/node bench/edgar-financials.ts

import {
  type CompanyFactsDocument,
  deriveFinancials,
  type XbrlFact,
} from "../src/products/edgar/derive-financials.ts";
import {
  EDGAR_FAMILY,
  financialsKey,
  forgetFinancials,
  type StoredFinancials,
} from "../src/products/edgar/edgar-store.ts";
import { edgarFinancials, FinancialsQuery } from "../src/products/edgar/financials.ts";
import { edgarFamily } from "../src/products/edgar/index.ts";
import { LINE_ITEMS, parseTagRef } from "../src/products/edgar/line-items.ts";
import { openFamilyContext } from "../test/family-harness.ts";

const FIRST_YEAR = 2009;
const LAST_YEAR = 2025;
const FILLER_CONCEPTS = 260;

function fiscalYearEnd(year: number): string {
  return `${year}-09-${String(24 + (year % 7)).padStart(2, "0")}`;
}

function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Facts of one concept the way a large filer's companyfacts holds them: every period repeated as comparatives. */
function conceptFacts(seed: number, instant: boolean): XbrlFact[] {
  const facts: XbrlFact[] = [];
  let value = 1_000_000_000 + seed * 7_919_000;
  for (let year = FIRST_YEAR; year <= LAST_YEAR; year++) {
    const start = nextDay(fiscalYearEnd(year - 1));
    const end = fiscalYearEnd(year);
    const quarterEnds = [addDays(start, 90), addDays(start, 181), addDays(start, 272)];
    const tenK = (filingYear: number) => ({
      accn: `0000320193-${String(filingYear % 100).padStart(2, "0")}-000${100 + (seed % 800)}`,
      fy: filingYear,
      fp: "FY",
      form: "10-K",
      filed: `${filingYear}-11-01`,
    });
    const tenQ = (filingYear: number, q: number) => ({
      accn: `0000320193-${String(filingYear % 100).padStart(2, "0")}-00${2000 + q * 100 + (seed % 90)}`,
      fy: filingYear,
      fp: `Q${q}`,
      form: "10-Q",
      filed: `${filingYear}-0${q * 3}-01`,
    });
    value = Math.round(value * 1.04);
    const q = [value * 0.27, value * 0.23, value * 0.24].map(Math.round);
    for (const filingYear of [year, year + 1, year + 2]) {
      if (filingYear > LAST_YEAR) continue;
      const framed = filingYear === Math.min(year + 2, LAST_YEAR);
      facts.push(
        instant
          ? { end, val: value, ...tenK(filingYear), ...(framed ? { frame: `CY${year}Q3I` } : {}) }
          : { start, end, val: value, ...tenK(filingYear), ...(framed ? { frame: `CY${year}` } : {}) },
      );
    }
    for (const filingYear of [year, year + 1]) {
      if (filingYear > LAST_YEAR) continue;
      for (let i = 0; i < 3; i++) {
        const quarterStart = i === 0 ? start : nextDay(quarterEnds[i - 1] as string);
        const quarterEnd = quarterEnds[i] as string;
        if (instant) {
          facts.push({ end: quarterEnd, val: value - i * 1000, ...tenQ(filingYear, i + 1) });
          continue;
        }
        facts.push({ start: quarterStart, end: quarterEnd, val: q[i] as number, ...tenQ(filingYear, i + 1) });
        if (i > 0) {
          const ytd = (q as number[]).slice(0, i + 1).reduce((a, b) => a + b, 0);
          facts.push({ start, end: quarterEnd, val: ytd, ...tenQ(filingYear, i + 1) });
        }
      }
    }
  }
  return facts;
}

function syntheticCompanyFacts(): CompanyFactsDocument {
  const usGaap: Record<string, { label: string; description: string; units: Record<string, XbrlFact[]> }> =
    {};
  const dei: typeof usGaap = {};
  let seed = 0;
  for (const item of LINE_ITEMS) {
    for (const ref of item.tags.slice(0, 2)) {
      const { taxonomy, tag } = parseTagRef(ref);
      if (taxonomy !== "us-gaap" && taxonomy !== "dei") continue;
      const unit = item.kind === "money" ? "USD" : item.kind === "perShare" ? "USD/shares" : "shares";
      const target = taxonomy === "dei" ? dei : usGaap;
      target[tag] = {
        label: tag,
        description: `Synthetic ${tag} for the benchmark.`,
        units: { [unit]: conceptFacts(seed++, item.period === "instant") },
      };
    }
  }
  for (let i = 0; i < FILLER_CONCEPTS; i++) {
    usGaap[`SyntheticDisclosureConcept${i}`] = {
      label: `Synthetic disclosure ${i}`,
      description: "A concept no line item reads, as most of a real filer's concepts are.",
      units: { USD: conceptFacts(seed++, i % 3 === 0) },
    };
  }
  return { cik: 320193, entityName: "Synthetic Apple-size filer", facts: { dei, "us-gaap": usGaap } };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function time(runs: number, run: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function timeAsync(runs: number, run: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const doc = syntheticCompanyFacts();
const text = JSON.stringify(doc);
const concepts = Object.keys(doc.facts?.["us-gaap"] ?? {}).length + Object.keys(doc.facts?.dei ?? {}).length;
const factCount = Object.values(doc.facts ?? {})
  .flatMap((taxonomy) => Object.values(taxonomy))
  .reduce(
    (sum, concept) => sum + Object.values(concept.units ?? {}).reduce((s, facts) => s + facts.length, 0),
    0,
  );

const parsed = JSON.parse(text) as CompanyFactsDocument;
for (let i = 0; i < 5; i++) deriveFinancials(parsed); // warm-up
const parseMs = time(15, () => JSON.parse(text));
const deriveMs = time(25, () => deriveFinancials(parsed));
const derived = deriveFinancials(parsed);

const ctx = await openFamilyContext(edgarFamily, { EDGAR_TICKERS: "AAPL" });
const { highlights: _highlights, ...rest } = derived;
const stored: StoredFinancials = {
  ok: true,
  source: "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json",
  ...rest,
};
await ctx.store.cache.put(EDGAR_FAMILY, financialsKey("0000320193"), {
  body: stored,
  fetchedAt: new Date().toISOString(),
});
const storedBytes = JSON.stringify(stored).length;

const full = { query: FinancialsQuery.parse({ cik: "320193" }), body: undefined };
const trimmed = {
  query: FinancialsQuery.parse({ cik: "320193", tags: "revenue,netIncome,epsDiluted", period: "annual" }),
  body: undefined,
};
for (let i = 0; i < 50; i++) await edgarFinancials.handle(full, ctx); // warm-up
// Read from the store and parsed: the first request for a company within 10 s (on each node).
const servedColdMs = await timeAsync(200, () => {
  forgetFinancials(ctx, "0000320193");
  return edgarFinancials.handle(full, ctx);
});
// The same company again within 10 s: the parsed document is reused.
const servedFullMs = await timeAsync(300, () => edgarFinancials.handle(full, ctx));
const servedTrimmedMs = await timeAsync(300, () => edgarFinancials.handle(trimmed, ctx));
const answer = (await edgarFinancials.handle(full, ctx)).body;
const stringifyMs = time(100, () => JSON.stringify(answer));
await ctx.close();

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(value < 0.1 ? 3 : 2)} ms`;
console.log("EDGAR financials benchmark (medians)");
console.log(`  companyfacts document       ${mb(text.length)}, ${concepts} concepts, ${factCount} facts`);
console.log(
  `  derived document            ${(storedBytes / 1024).toFixed(0)} KB, ${Object.keys(derived.facts).length} line items`,
);
console.log(`  baseline JSON.parse         ${ms(parseMs)}`);
console.log(
  `  derivation (warm time)      ${ms(deriveMs)}   = ${(deriveMs / parseMs).toFixed(2)}x the parse   (aim < 50 ms)`,
);
console.log(
  `  served, store read + parse  ${ms(servedColdMs)}   = ${(servedColdMs / parseMs).toFixed(3)}x the parse   (aim < 2 ms)`,
);
console.log(
  `  served again within 10 s    ${ms(servedFullMs)}   = ${(servedFullMs / parseMs).toFixed(4)}x the parse`,
);
console.log(
  `  served, 3 items annual      ${ms(servedTrimmedMs)}   = ${(servedTrimmedMs / parseMs).toFixed(4)}x the parse`,
);
console.log(`  JSON.stringify of the answer ${ms(stringifyMs)} (done by the framework after the handler)`);
