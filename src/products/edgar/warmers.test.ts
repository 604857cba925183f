import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { loadConfig } from "../../config.ts";
import { CompanyAnswer, edgarCompany } from "./company.ts";
import { edgarFinancials } from "./financials.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  settingsOf,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";
import { COMPANY_QUEUE } from "./jobs.ts";
import { DEFAULT_TICKERS, readEdgarSettings } from "./settings.ts";
import { SEC_DATA_UPSTREAM, SEC_REQUESTS_PER_SECOND, SEC_WWW_UPSTREAM } from "./upstream.ts";
import { warmCompanies } from "./warmers.ts";

const recording = (name: string) => fs.readFileSync(path.join(EDGAR_RECORDINGS_DIR, name), "utf8");

/** J&J's submissions with 1000 filings in filings.recent and an extra file that must not be needed. */
function jnjWithThousandFilings(): string {
  const doc = JSON.parse(recording("CIK0000200406-submissions.json"));
  const recent: Record<string, unknown[]> = doc.filings.recent;
  for (const column of Object.keys(recent)) recent[column] = [];
  for (let i = 0; i < 1000; i++) {
    const day = new Date(Date.UTC(2020, 0, 1) - i * 86_400_000).toISOString().slice(0, 10);
    const row: Record<string, unknown> = {
      accessionNumber: `0000200406-${day.slice(2, 4)}-${String(1_000_000 + i).slice(1)}`,
      filingDate: day,
      reportDate: "",
      acceptanceDateTime: `${day}T16:00:00.000Z`,
      act: "34",
      form: i % 10 === 0 ? "10-Q" : "4",
      fileNumber: "001-03215",
      filmNumber: "",
      items: "",
      core_type: "4",
      size: 1000 + i,
      isXBRL: 0,
      isInlineXBRL: 0,
      primaryDocument: "doc.xml",
      primaryDocDescription: "FORM 4",
    };
    for (const column of Object.keys(recent)) recent[column]!.push(row[column]);
  }
  doc.filings.files = [
    {
      name: "CIK0000200406-submissions-001.json",
      filingCount: 3000,
      filingFrom: "1994-01-01",
      filingTo: "2017-04-07",
    },
  ];
  return JSON.stringify(doc);
}

const FILES: Record<string, () => string> = {
  "/files/company_tickers.json": () => recording("company_tickers.json"),
  "/submissions/CIK0000320193.json": () => recording("CIK0000320193-submissions.json"),
  "/submissions/CIK0000320193-submissions-001.json": () => recording("CIK0000320193-submissions-001.json"),
  "/submissions/CIK0000789019.json": () => recording("CIK0000789019-submissions.json"),
  "/submissions/CIK0000200406.json": jnjWithThousandFilings,
  "/api/xbrl/companyfacts/CIK0000320193.json": () => recording("CIK0000320193-companyfacts.json"),
  "/api/xbrl/companyfacts/CIK0000200406.json": () => recording("CIK0000200406-companyfacts.json"),
  // No company facts for Microsoft here: SEC answers 404 for companies without XBRL financial data.
};

interface Seen {
  path: string;
  at: number;
  userAgent: string | undefined;
  acceptEncoding: string | undefined;
}

describe("EDGAR warmers against a live (loopback) SEC", () => {
  let sec: LoopbackUpstream;
  let ctx: FamilyTestContext;
  const seen: Seen[] = [];
  /** When the client sent each request: its spacing is the client's to keep, whatever the machine's load. */
  const sent: Array<{ path: string; at: number }> = [];
  const sendingFetch: typeof fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    sent.push({ path: new URL(url).pathname, at: performance.now() });
    return fetch(input, init);
  };
  before(async () => {
    sec = await startLoopbackUpstream((url, request) => {
      seen.push({
        path: url.pathname,
        at: performance.now(),
        userAgent: request.headers["user-agent"],
        acceptEncoding: request.headers["accept-encoding"] as string | undefined,
      });
      const file = FILES[url.pathname];
      if (!file)
        return { status: 404, headers: { "content-type": "text/html" }, body: "<html>Not Found</html>" };
      return { status: 200, headers: { "content-type": "application/json" }, body: file() };
    });
    ctx = await openTestContext(
      {
        UPSTREAMS: "live",
        SEC_DATA_BASE_URL: sec.baseUrl,
        SEC_WWW_BASE_URL: sec.baseUrl,
        SEC_USER_AGENT: "Acme Data ops@acme.example",
        EDGAR_TICKERS: "AAPL,JNJ,NVDA",
      },
      sendingFetch,
    );
  });
  after(async () => {
    await ctx.close();
    await sec.close();
  });

  it("refreshes the configured companies, fetching the ticker list first, and reports the ones that failed", async () => {
    const counts = await warmCompanies(ctx, settingsOf(ctx));
    assert.equal(counts.refreshed, 2, JSON.stringify(counts.failed));
    assert.equal(counts.withFinancials, 2);
    assert.equal(counts.filings, 19 + 1000);
    assert.deepEqual(counts.failed, [{ ticker: "NVDA", error: "SEC has no submissions for CIK 0001045810" }]);
    assert.deepEqual(
      seen.map((s) => s.path),
      [
        "/files/company_tickers.json",
        "/submissions/CIK0000320193.json",
        "/submissions/CIK0000320193-submissions-001.json",
        "/api/xbrl/companyfacts/CIK0000320193.json",
        // 1000 filings in filings.recent already: the extra file is not fetched.
        "/submissions/CIK0000200406.json",
        "/api/xbrl/companyfacts/CIK0000200406.json",
        "/submissions/CIK0001045810.json",
      ],
    );
  });

  it("booked both SEC hosts against one cluster-wide budget of at most 10 requests a second", async () => {
    assert.equal(SEC_DATA_UPSTREAM.budget, "sec");
    assert.equal(SEC_WWW_UPSTREAM.budget, "sec");
    const perSecond = 1000 / (SEC_DATA_UPSTREAM.minIntervalMs ?? 0);
    assert.ok(perSecond <= 10 && perSecond === SEC_REQUESTS_PER_SECOND, `${perSecond} requests a second`);
    const budgets = await ctx.service.store.db.selectFrom("upstream_budgets").select("upstream").execute();
    assert.deepEqual(
      budgets.map((b) => b.upstream),
      ["sec"],
    );
  });

  it("declares the configured User-Agent and compression on every request, spaced by the client", () => {
    for (const request of seen) {
      assert.equal(request.userAgent, "Acme Data ops@acme.example", request.path);
      assert.equal(request.acceptEncoding, "gzip, deflate", request.path);
    }
    const data = sent.filter((s) => !s.path.startsWith("/files/"));
    assert.equal(data.length, seen.filter((s) => !s.path.startsWith("/files/")).length);
    // Each request waits for its booked start; a late timer on one may shorten the next gap, never the whole
    // run. Unspaced, the run would take a few milliseconds.
    const span = data.at(-1)!.at - data[0]!.at;
    const spaced = (data.length - 1) * (SEC_DATA_UPSTREAM.minIntervalMs ?? 0);
    assert.ok(span >= spaced / 2, `${data.length} requests in ${span.toFixed(0)} ms`);
  });

  it("keeps a company's latest 1000 filings and profiles the latest 100", async () => {
    const body = CompanyAnswer.parse(
      (await edgarCompany.handle({ query: { ticker: "JNJ" }, body: undefined }, ctx)).body,
    );
    assert.equal(body.filings.length, 100);
    assert.equal(
      Object.values(body.filingCountsByForm).reduce((a, b) => a + b, 0),
      1000,
    );
    assert.deepEqual(body.filingCountsByForm, { "4": 900, "10-Q": 100 });
  });

  it("answers 404 not_found for a CIK SEC does not know, without queueing it again", async () => {
    const outcome = await edgarCompany.handle({ query: { cik: "0001045810" }, body: undefined }, ctx);
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_found");
    assert.match(outcome.body.message, /SEC has no company with CIK 0001045810/);
    assert.equal(await ctx.store.jobs.get(COMPANY_QUEUE, "0001045810"), undefined);
  });

  it("profiles a company without XBRL facts with factsError, and answers its financials 404 not charged", async () => {
    await ctx.family.jobs![COMPANY_QUEUE]!({ cik: "0000789019" }, ctx);
    const profile = CompanyAnswer.parse(
      (await edgarCompany.handle({ query: { ticker: "MSFT" }, body: undefined }, ctx)).body,
    );
    assert.match(
      profile.factsError ?? "",
      /SEC publishes no XBRL company facts for CIK 0000789019 \(HTTP 404/,
    );
    assert.deepEqual(profile.financialHighlights, []);
    assert.equal(profile.sources.companyfacts, `${sec.baseUrl}/api/xbrl/companyfacts/CIK0000789019.json`);
    const financials = await edgarFinancials.handle({ query: { ticker: "MSFT" }, body: undefined }, ctx);
    assert.equal(financials.status, 404);
    assert.equal(financials.body.error, "not_found");
    assert.equal(financials.body.charged, false);
    assert.match(financials.body.message, /no XBRL company facts/);
  });

  it("queues a daily refresh of companies fetched on request once their data is a day old", async () => {
    const db = ctx.service.store.db as unknown as Kysely<{
      edgar_companies: { cik: string; fetched_at: string };
    }>;
    const yesterday = new Date(Date.now() - 21 * 3600_000).toISOString();
    await db
      .updateTable("edgar_companies")
      .set({ fetched_at: yesterday })
      .where("cik", "=", "0000789019")
      .execute();
    const counts = await warmCompanies(ctx, settingsOf(ctx));
    assert.equal(counts.queuedRefreshes, 1);
    assert.equal((await ctx.store.jobs.get(COMPANY_QUEUE, "0000789019"))?.state, "queued");
  });
});

describe("EDGAR settings", () => {
  const settingsOf = (env: Record<string, string>) =>
    readEdgarSettings(loadConfig({ LOG_LEVEL: "silent", ...env }));

  it("declares the operator and contact to SEC by default and warms large issuers", () => {
    assert.deepEqual(settingsOf({}), {
      userAgent: "paycall operator operator@example.invalid",
      tickers: DEFAULT_TICKERS,
    });
    assert.equal(
      settingsOf({ OPERATOR_NAME: "Acme Data", CONTACT_EMAIL: "ops@acme.example" }).userAgent,
      "Acme Data ops@acme.example",
    );
    assert.deepEqual(settingsOf({ EDGAR_TICKERS: " aapl, brk.b ,AAPL" }).tickers, ["AAPL", "BRK-B"]);
  });

  it("refuses a User-Agent without a contact address and malformed tickers, naming the variable", () => {
    assert.throws(
      () => settingsOf({ SEC_USER_AGENT: "paycall" }),
      /SEC_USER_AGENT: must name the operator and a contact/,
    );
    assert.throws(() => settingsOf({ EDGAR_TICKERS: "AAPL,$$$" }), /EDGAR_TICKERS: "\$\$\$" is not a ticker/);
    assert.throws(() => settingsOf({ EDGAR_TICKERS: " , " }), /EDGAR_TICKERS: must list at least one ticker/);
  });
});
