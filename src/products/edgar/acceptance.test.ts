import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { acceptanceDigits, easternToUtc, HEADER_RETRY_AFTER_SEC, headerPath } from "./acceptance.ts";
import { edgarFiling, FilingAnswer, FilingQuery } from "./filing.ts";
import {
  openTestContext,
  openWarmedContext,
  settingsOf,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { EDGAR_RECORDINGS_DIR } from "./index.ts";
import { FILING_QUEUE } from "./jobs.ts";
import { warmCompanies } from "./warmers.ts";

describe("EDGAR acceptance times: US Eastern in the header, UTC in the answer", () => {
  it("converts with the daylight-saving rules of the date", () => {
    assert.deepEqual(easternToUtc("20220506183057"), {
      utc: "2022-05-06T22:30:57Z",
      eastern: "2022-05-06T18:30:57-04:00",
    });
    assert.deepEqual(easternToUtc("20250131060217"), {
      utc: "2025-01-31T11:02:17Z",
      eastern: "2025-01-31T06:02:17-05:00",
    });
    // Either side of the 2024 changes (10 March, 3 November), and before 2007's rules (first Sunday of April).
    assert.equal(easternToUtc("20240309120000")?.utc, "2024-03-09T17:00:00Z");
    assert.equal(easternToUtc("20240311120000")?.utc, "2024-03-11T16:00:00Z");
    assert.equal(easternToUtc("20241101060136")?.utc, "2024-11-01T10:01:36Z");
    assert.equal(easternToUtc("20241104060136")?.utc, "2024-11-04T11:01:36Z");
    assert.equal(easternToUtc("20060320090000")?.utc, "2006-03-20T14:00:00Z");
    assert.equal(easternToUtc("20061030090000")?.utc, "2006-10-30T14:00:00Z");
    assert.equal(easternToUtc("20220230120000"), undefined);
    assert.equal(easternToUtc("2022050618305"), undefined);
  });

  it("reads <ACCEPTANCE-DATETIME> from a header and builds the header's path", () => {
    assert.equal(
      acceptanceDigits("<SEC-HEADER>x.hdr.sgml : 20220506\n<ACCEPTANCE-DATETIME>20220506183057\n<TYPE>4\n"),
      "20220506183057",
    );
    assert.equal(acceptanceDigits("<SEC-HEADER>\n<TYPE>4\n"), undefined);
    assert.equal(
      headerPath("0000320193", "0000320193-22-000061"),
      "/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.hdr.sgml",
    );
  });
});

describe("edgar.filing acceptance time (UPSTREAMS=replay, recorded headers)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openWarmedContext();
  });
  after(() => ctx.close());

  async function answer(accession: string) {
    const outcome = await edgarFiling(settingsOf(ctx)).handle(
      { query: FilingQuery.parse({ accession }), body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 200, JSON.stringify(outcome.body));
    return FilingAnswer.parse(outcome.body);
  }

  it("the Form 4 case: SEC's JSON says 18:30:57Z, the header 18:30:57 Eastern, so 22:30:57 UTC", async () => {
    const body = await answer("0000320193-22-000061");
    assert.equal(body.form, "4");
    assert.equal(body.acceptanceDateTimePublished, "2022-05-06T18:30:57.000Z");
    assert.equal(body.acceptanceDateTimeEastern, "2022-05-06T18:30:57-04:00");
    assert.equal(body.acceptanceDateTime, "2022-05-06T22:30:57Z");
    assert.equal(
      body.acceptanceSource,
      "https://www.sec.gov/Archives/edgar/data/320193/000032019322000061/0000320193-22-000061.hdr.sgml",
    );
  });

  it("the free sample (Apple's 10-K) answers offline with the header's time", async () => {
    assert.deepEqual(edgarFiling(settingsOf(ctx)).sample, { accession: "0000320193-24-000123" });
    const body = await answer("0000320193-24-000123");
    assert.equal(body.acceptanceDateTimePublished, "2024-11-01T06:01:36.000Z");
    assert.equal(body.acceptanceDateTime, "2024-11-01T10:01:36Z");
  });

  it("a filing whose header SEC does not serve answers null, never SEC's mislabelled time", async () => {
    const body = await answer("0000320193-25-000079");
    assert.equal(body.acceptanceDateTime, null);
    assert.equal(body.acceptanceDateTimeEastern, null);
    assert.equal(body.acceptanceDateTimePublished, "2025-10-31T06:01:26.000Z");
  });

  it("a missing filing folder that answers 403 is absent, like a 404", async () => {
    const db = ctx.service.store.db as unknown as Kysely<{
      edgar_companies: { cik: string; fetched_at: string };
    }>;
    const anHourAgo = new Date(Date.now() - 3600_000).toISOString();
    await db
      .updateTable("edgar_companies")
      .set({ fetched_at: anHourAgo })
      .where("cik", "=", "0000320193")
      .execute();
    const missing = { query: FilingQuery.parse({ accession: "0000320193-25-000098" }), body: undefined };
    const queued = await edgarFiling(settingsOf(ctx)).handle(missing, ctx);
    assert.equal(queued.status, 404);
    assert.equal((queued.body as { error?: string }).error, "not_cached");
    // The recorded folder index answers 403 (recordings/filing-index-forbidden): remembered as absent.
    await ctx.family.jobs![FILING_QUEUE]!({ cik: "0000320193", accession: "0000320193-25-000098" }, ctx);
    const after = await edgarFiling(settingsOf(ctx)).handle(missing, ctx);
    assert.equal(after.status, 404);
    assert.equal(after.body.error, "not_found");
    assert.equal(after.body.charged, false);
  });
});

describe("edgar.filing acceptance time against a live (loopback) SEC", () => {
  it("fetches the header once and keeps it; a failing SEC is a 503 with Retry-After, not charged", async () => {
    const file = (name: string) => fs.readFileSync(path.join(EDGAR_RECORDINGS_DIR, name), "utf8");
    const headerOf8k = "/Archives/edgar/data/320193/000032019325000077/0000320193-25-000077.hdr.sgml";
    let headerCalls = 0;
    const headerAgents = new Set<string | undefined>();
    let secDown = false;
    const sec = await startLoopbackUpstream((url, request) => {
      const files: Record<string, string> = {
        "/files/company_tickers.json": "company_tickers.json",
        "/submissions/CIK0000320193.json": "CIK0000320193-submissions.json",
        "/submissions/CIK0000320193-submissions-001.json": "CIK0000320193-submissions-001.json",
        "/api/xbrl/companyfacts/CIK0000320193.json": "CIK0000320193-companyfacts.json",
      };
      if (url.pathname.endsWith(".hdr.sgml")) {
        headerCalls++;
        headerAgents.add(request.headers["user-agent"]);
        if (secDown) return { status: 400, body: "Bad Request" };
        if (url.pathname !== headerOf8k) return { status: 404, body: "<html>Not Found</html>" };
        return { status: 200, body: "<SEC-HEADER>\n<ACCEPTANCE-DATETIME>20251030163052\n</SEC-HEADER>\n" };
      }
      const name = files[url.pathname];
      return name ? { status: 200, body: file(name) } : { status: 404, body: "<html>Not Found</html>" };
    });
    const ctx = await openTestContext({
      UPSTREAMS: "live",
      SEC_DATA_BASE_URL: sec.baseUrl,
      SEC_WWW_BASE_URL: sec.baseUrl,
      SEC_USER_AGENT: "Acme Data ops@acme.example",
      EDGAR_TICKERS: "AAPL",
    });
    try {
      await warmCompanies(ctx, settingsOf(ctx));
      const ask = (accession: string) =>
        edgarFiling(settingsOf(ctx)).handle(
          { query: FilingQuery.parse({ accession }), body: undefined },
          ctx,
        );
      const first = await ask("0000320193-25-000077");
      assert.equal(first.status, 200);
      assert.equal((first.body as { acceptanceDateTime: string }).acceptanceDateTime, "2025-10-30T20:30:52Z");
      secDown = true;
      const again = await ask("0000320193-25-000077");
      assert.equal(again.status, 200, "answered from the cached header");
      assert.equal(headerCalls, 1);

      const failed = await ask("0000320193-25-000071");
      assert.equal(failed.status, 503);
      assert.equal(failed.body.charged, false);
      assert.equal(failed.body.retryAfterSec, HEADER_RETRY_AFTER_SEC);
      assert.match(String(failed.body.message), /header of filing 0000320193-25-000071/);
      assert.deepEqual(
        [...headerAgents],
        ["Acme Data ops@acme.example"],
        "SEC_USER_AGENT declared on every header",
      );
    } finally {
      await ctx.close();
      await sec.close();
    }
  });
});
