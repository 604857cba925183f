import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { CompanyAnswer, CompanyQuery, edgarCompany } from "./company.ts";
import { COMPANY_RETRY_AFTER_SEC } from "./company-params.ts";
import { openTestContext, openWarmedContext } from "./harness.test-helper.ts";
import { COMPANY_QUEUE } from "./jobs.ts";

function issueOf(params: Record<string, string>) {
  const result = CompanyQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("edgar.company query", () => {
  it("takes a ticker or a CIK in their usual spellings", () => {
    assert.deepEqual(CompanyQuery.parse({ ticker: "brk.b" }), { ticker: "BRK-B" });
    assert.deepEqual(CompanyQuery.parse({ cik: "CIK0000320193" }), { cik: "0000320193" });
    assert.deepEqual(CompanyQuery.parse({ cik: "320193" }), { cik: "0000320193" });
  });

  it("needs exactly one of ticker and cik, and well-formed values", () => {
    assert.deepEqual(issueOf({}), { path: "ticker", message: "ticker or cik is required (give one)" });
    assert.deepEqual(issueOf({ ticker: "AAPL", cik: "320193" }), {
      path: "cik",
      message: "give ticker or cik, not both",
    });
    assert.equal(issueOf({ ticker: "" }).path, "ticker");
    assert.equal(issueOf({ ticker: "AA PL" }).path, "ticker");
    assert.equal(issueOf({ cik: "0" }).path, "cik");
    assert.match(issueOf({ cik: "12345678901" }).message, /1 to 10 digits/);
  });

  it("declares its catalog entry", () => {
    assert.equal(edgarCompany.path, "/v1/edgar/company");
    assert.equal(edgarCompany.price, "0.005");
    assert.deepEqual(edgarCompany.sample, { ticker: "AAPL" });
  });
});

describe("edgar.company before anything is cached", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("queues the ticker list for a ticker, and the company for a CIK, answering 404 not charged", async () => {
    const byTicker = await edgarCompany.handle({ query: { ticker: "AAPL" }, body: undefined }, ctx);
    assert.equal(byTicker.status, 404);
    assert.equal(byTicker.body.error, "not_cached");
    assert.equal(byTicker.body.charged, false);
    assert.equal((await ctx.store.jobs.get("warmer", "edgar.tickers"))?.state, "queued");

    const byCik = await edgarCompany.handle({ query: { cik: "0000789019" }, body: undefined }, ctx);
    assert.equal(byCik.status, 404);
    assert.equal(byCik.body.error, "not_cached");
    assert.equal(byCik.body.retryAfterSec, COMPANY_RETRY_AFTER_SEC);
    const job = await ctx.store.jobs.get(COMPANY_QUEUE, "0000789019");
    assert.deepEqual(JSON.parse(job!.payload), { cik: "0000789019" });
    await edgarCompany.handle({ query: { cik: "0000789019" }, body: undefined }, ctx);
    assert.deepEqual(await ctx.store.jobs.counts(COMPANY_QUEUE), { queued: 1, running: 0, done: 0, dead: 0 });
  });

  it("passes every ticker before the ticker list is known", async () => {
    assert.equal(await edgarCompany.check?.({ query: { ticker: "ZZZZ" }, body: undefined }, ctx), undefined);
  });

  it("answers once the queued job has fetched the company", async () => {
    await ctx.family.jobs![COMPANY_QUEUE]!({ cik: "0000789019" }, ctx);
    const outcome = await edgarCompany.handle({ query: { cik: "0000789019" }, body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    const body = CompanyAnswer.parse(outcome.body);
    assert.equal(body.name, "MICROSOFT CORP");
    assert.equal(body.fiscalYearEnd, "0630");
    assert.equal(body.website, "https://www.microsoft.com");
  });
});

describe("edgar.company from the warmed cache (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openWarmedContext();
  });
  after(() => ctx.close());

  it("rejects a ticker SEC does not list, before payment", async () => {
    const outcome = await edgarCompany.check?.({ query: { ticker: "ZZZZ" }, body: undefined }, ctx);
    assert.equal(outcome?.status, 400);
    assert.equal(outcome.body.parameter, "ticker");
    assert.match(outcome.body.message, /ZZZZ.*\/v1\/edgar\/search/);
    assert.equal(await edgarCompany.check?.({ query: { ticker: "AAPL" }, body: undefined }, ctx), undefined);
  });

  it("answers the profile with the spec's fields in order", async () => {
    const outcome = await edgarCompany.handle({ query: { ticker: "AAPL" }, body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    const body = CompanyAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(body), [
      "cik",
      "name",
      "tickers",
      "exchanges",
      "sic",
      "sicDescription",
      "fiscalYearEnd",
      "stateOfIncorporation",
      "phone",
      "website",
      "investorWebsite",
      "category",
      "addresses",
      "filingCountsByForm",
      "filings",
      "keyFilings",
      "financialHighlights",
      "factsError",
      "fetchedAt",
      "sources",
    ]);
    assert.equal(body.cik, "0000320193");
    assert.equal(body.sicDescription, "Electronic Computers");
    assert.equal(body.addresses.mailing.city, "CUPERTINO");
    assert.equal(body.factsError, null);
    assert.deepEqual(body.sources, {
      submissions: "https://data.sec.gov/submissions/CIK0000320193.json",
      companyfacts: "https://data.sec.gov/api/xbrl/companyfacts/CIK0000320193.json",
    });
    assert.ok(Date.now() - Date.parse(body.fetchedAt) < 60_000);
  });

  it("lists recent filings from filings.recent and the extra file, newest first, with counts by form", async () => {
    const body = CompanyAnswer.parse(
      (await edgarCompany.handle({ query: CompanyQuery.parse({ cik: "320193" }), body: undefined }, ctx))
        .body,
    );
    assert.equal(body.filings.length, 19);
    assert.deepEqual(body.filings[0], {
      accession: "0000320193-25-000079",
      form: "10-K",
      filed: "2025-10-31",
      reportDate: "2025-09-27",
      primaryDocument: "aapl-20250927.htm",
      description: "10-K",
      size: 9876543,
      indexUrl:
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/0000320193-25-000079-index.htm",
      filingUrl: "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/aapl-20250927.htm",
      documentsUrl: "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/",
      secViewerUrl:
        "https://www.sec.gov/ix?doc=/Archives/edgar/data/320193/000032019325000079/aapl-20250927.htm",
    });
    assert.equal(body.filings.at(-1)?.accession, "0000320193-22-000061");
    const dates = body.filings.map((f) => f.filed);
    assert.deepEqual(dates, [...dates].sort().reverse());
    assert.deepEqual(body.filingCountsByForm, {
      "10-Q": 6,
      "8-K": 5,
      "10-K": 3,
      "4": 2,
      "DEF 14A": 1,
      "S-8": 1,
      "SCHEDULE 13G/A": 1,
    });
    assert.deepEqual(
      body.keyFilings.map((k) => `${k.category}:${k.form}`),
      [
        "annualReport:10-K",
        "quarterlyReport:10-Q",
        "currentReport:8-K",
        "proxyStatement:DEF 14A",
        "insiderOwnership:4",
        "beneficialOwnership:SCHEDULE 13G/A",
        "registrationStatement:S-8",
      ],
    );
  });

  it("carries the latest annual financial highlights from company facts", async () => {
    const body = CompanyAnswer.parse(
      (await edgarCompany.handle({ query: { ticker: "JNJ" }, body: undefined }, ctx)).body,
    );
    const revenue = body.financialHighlights.find((h) => h.period.calendar === "CY2019" && h.unit === "USD");
    assert.equal(revenue?.tag, "RevenueFromContractWithCustomerExcludingAssessedTax");
    assert.equal(revenue?.value, 82_100_000_000);
    assert.equal(revenue?.fy, 2019);
    assert.equal(revenue?.fp, "FY");
    const assets = body.financialHighlights.find((h) => h.tag === "Assets");
    assert.deepEqual(assets?.period, { calendar: "CY2019", start: null, end: "2019-12-29", instant: true });
  });
});
