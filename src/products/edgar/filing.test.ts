import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { edgarFiling, FILING_RETRY_AFTER_SEC, FilingAnswer, FilingQuery } from "./filing.ts";
import { openWarmedContext, settingsOf } from "./harness.test-helper.ts";
import { COMPANY_QUEUE, FILING_QUEUE } from "./jobs.ts";

const query = (params: Record<string, string>) => FilingQuery.parse(params);

function issueOf(params: Record<string, string>) {
  const result = FilingQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("edgar.filing query", () => {
  it("normalises the accession and takes an optional ticker or cik", () => {
    assert.deepEqual(query({ accession: "000032019325000079" }), { accession: "0000320193-25-000079" });
    assert.deepEqual(query({ accession: "0001193125-25-230145", ticker: "aapl" }), {
      accession: "0001193125-25-230145",
      ticker: "AAPL",
    });
  });

  it("rejects a malformed or missing accession and both ticker and cik", () => {
    assert.equal(issueOf({}).path, "accession");
    assert.match(issueOf({}).message, /accession is required/);
    assert.match(issueOf({ accession: "0000320193-25-0000790" }).message, /18 digits/);
    assert.equal(issueOf({ accession: "abc" }).path, "accession");
    assert.equal(issueOf({ accession: "0000320193-25-000079", ticker: "AAPL", cik: "320193" }).path, "cik");
  });
});

describe("edgar.filing from the warmed cache (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openWarmedContext();
  });
  after(() => ctx.close());

  async function answer(params: Record<string, string>) {
    const outcome = await edgarFiling(settingsOf(ctx)).handle({ query: query(params), body: undefined }, ctx);
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    return FilingAnswer.parse(outcome.body);
  }

  it("answers a filing with the spec's fields", async () => {
    const body = await answer({ accession: "000032019325000077" });
    assert.deepEqual(body, {
      accession: "0000320193-25-000077",
      cik: "0000320193",
      company: {
        name: "Apple Inc.",
        tickers: ["AAPL"],
        exchanges: ["Nasdaq"],
        sic: "3571",
        sicDescription: "Electronic Computers",
      },
      form: "8-K",
      filingDate: "2025-10-30",
      reportDate: "2025-10-30",
      // From the filing's header (16:30:52 Eastern, daylight time), not SEC's JSON, which says 16:30:52Z.
      acceptanceDateTime: "2025-10-30T20:30:52Z",
      acceptanceDateTimeEastern: "2025-10-30T16:30:52-04:00",
      acceptanceDateTimePublished: "2025-10-30T16:30:52.000Z",
      act: "34",
      fileNumber: "001-36743",
      filmNumber: "251429977",
      items: [
        { item: "2.02", description: "Results of Operations and Financial Condition" },
        { item: "9.01", description: "Financial Statements and Exhibits" },
      ],
      size: 512345,
      isXBRL: true,
      isInlineXBRL: true,
      primaryDocument: "aapl-20251030.htm",
      primaryDocDescription: "8-K",
      urls: {
        indexUrl:
          "https://www.sec.gov/Archives/edgar/data/320193/000032019325000077/0000320193-25-000077-index.htm",
        filingUrl: "https://www.sec.gov/Archives/edgar/data/320193/000032019325000077/aapl-20251030.htm",
        documentsUrl: "https://www.sec.gov/Archives/edgar/data/320193/000032019325000077/",
        secViewerUrl:
          "https://www.sec.gov/ix?doc=/Archives/edgar/data/320193/000032019325000077/aapl-20251030.htm",
      },
      related: {
        company: "/v1/edgar/company?cik=0000320193",
        financials: "/v1/edgar/financials?cik=0000320193",
      },
      source: "https://data.sec.gov/submissions/CIK0000320193.json",
      acceptanceSource:
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325000077/0000320193-25-000077.hdr.sgml",
      fetchedAt: body.fetchedAt,
      notice: body.notice,
    });
    assert.match(body.notice, /^Source: SEC EDGAR/);
  });

  it("finds a filing submitted by a filing agent without ticker or cik once its company is cached", async () => {
    const body = await answer({ accession: "0001193125-25-230145" });
    assert.equal(body.cik, "0000320193");
    assert.deepEqual(body.items, [{ item: "5.02", description: body.items[0]?.description ?? null }]);
    assert.match(body.items[0]?.description ?? "", /^Departure of Directors/);
    assert.equal((await answer({ accession: "0001193125-25-230145", ticker: "AAPL" })).cik, "0000320193");
  });

  it("covers filings read from an extra submissions file", async () => {
    const body = await answer({ accession: "0001193125-24-041234", cik: "320193" });
    assert.equal(body.form, "S-8");
    assert.equal(body.act, "33");
    assert.equal(body.reportDate, null);
    assert.equal(body.source, "https://data.sec.gov/submissions/CIK0000320193-submissions-001.json");
  });

  it("answers 404 for an accession that is not the named company's, not charged", async () => {
    const outcome = await edgarFiling(settingsOf(ctx)).handle(
      { query: query({ accession: "0000320193-25-000079", ticker: "MSFT" }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_found");
    assert.equal(outcome.body.charged, false);
    assert.match(outcome.body.message, /not among the latest 1000 filings of MICROSOFT CORP/);
  });

  it("queues an uncached company named by cik, or a listed company whose CIK prefixes the accession", async () => {
    const named = await edgarFiling(settingsOf(ctx)).handle(
      { query: query({ accession: "0001045810-25-000100", cik: "1045810" }), body: undefined },
      ctx,
    );
    assert.equal(named.status, 404);
    assert.equal(named.body.error, "not_cached");
    assert.equal((await ctx.store.jobs.get(COMPANY_QUEUE, "0001045810"))?.state, "queued");

    const prefixed = await edgarFiling(settingsOf(ctx)).handle(
      { query: query({ accession: "0001018724-25-000004" }), body: undefined },
      ctx,
    );
    assert.equal(prefixed.status, 404);
    assert.equal(prefixed.body.error, "not_cached");
    assert.equal((await ctx.store.jobs.get(COMPANY_QUEUE, "0001018724"))?.state, "queued");
  });

  it("asks for ticker or cik when a filing agent's accession is not cached", async () => {
    const outcome = await edgarFiling(settingsOf(ctx)).handle(
      { query: query({ accession: "0001193125-25-999999" }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_found");
    assert.match(outcome.body.message, /filing agent: pass the company's ticker or cik/);
  });

  it("checks SEC for an accession newer than the cache, and remembers one that does not exist", async () => {
    const missing = query({ accession: "0000320193-25-000099" });
    // Just refreshed: a miss is a plain 404.
    const fresh = await edgarFiling(settingsOf(ctx)).handle({ query: missing, body: undefined }, ctx);
    assert.equal(fresh.status, 404);
    assert.equal(fresh.body.error, "not_found");

    // An hour later the cache may be behind SEC: the folder is checked first.
    const db = ctx.service.store.db as unknown as Kysely<{
      edgar_companies: { cik: string; fetched_at: string };
    }>;
    const anHourAgo = new Date(Date.now() - 3600_000).toISOString();
    await db
      .updateTable("edgar_companies")
      .set({ fetched_at: anHourAgo })
      .where("cik", "=", "0000320193")
      .execute();
    const queued = await edgarFiling(settingsOf(ctx)).handle({ query: missing, body: undefined }, ctx);
    assert.equal(queued.status, 404);
    assert.equal(queued.body.error, "not_cached");
    assert.equal(queued.body.retryAfterSec, FILING_RETRY_AFTER_SEC);
    const job = await ctx.store.jobs.get(FILING_QUEUE, "0000320193:0000320193-25-000099");
    assert.deepEqual(JSON.parse(job!.payload), { cik: "0000320193", accession: "0000320193-25-000099" });

    // The recorded folder index answers 404: the accession is remembered as absent, without refetching.
    await ctx.family.jobs![FILING_QUEUE]!(JSON.parse(job!.payload), ctx);
    const company = await db
      .selectFrom("edgar_companies")
      .select("fetched_at")
      .where("cik", "=", "0000320193")
      .executeTakeFirst();
    assert.equal(company?.fetched_at, anHourAgo);
    const after = await edgarFiling(settingsOf(ctx)).handle({ query: missing, body: undefined }, ctx);
    assert.equal(after.status, 404);
    assert.equal(after.body.error, "not_found");

    // From a year before the newest cached filing: it cannot be newer than the cache, so no check at all.
    const old = await edgarFiling(settingsOf(ctx)).handle(
      { query: query({ accession: "0000320193-19-000001" }), body: undefined },
      ctx,
    );
    assert.equal(old.status, 404);
    assert.equal(old.body.error, "not_found");
  });

  it("refetches the company's submissions when the folder exists", async () => {
    const db = ctx.service.store.db as unknown as Kysely<{
      edgar_companies: { cik: string; fetched_at: string };
    }>;
    const before = new Date(Date.now() - 3600_000).toISOString();
    await db
      .updateTable("edgar_companies")
      .set({ fetched_at: before })
      .where("cik", "=", "0000320193")
      .execute();
    await ctx.family.jobs![FILING_QUEUE]!({ cik: "0000320193", accession: "0000320193-25-000079" }, ctx);
    const row = await db
      .selectFrom("edgar_companies")
      .select("fetched_at")
      .where("cik", "=", "0000320193")
      .executeTakeFirst();
    assert.ok(row!.fetched_at > before);
    // The company's financials were kept.
    const financials = await ctx.store.cache.get<{ ok: boolean }>("edgar", "financials:0000320193");
    assert.equal(financials?.body.ok, true);
    const profile = await ctx.store.cache.get<{ financialHighlights: unknown[]; factsError: null }>(
      "edgar",
      "company:0000320193",
    );
    assert.equal(profile?.body.financialHighlights.length, 10);
    assert.equal(profile?.body.factsError, null);
  });
});
