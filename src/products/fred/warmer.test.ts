import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { FredCoverageAnswer } from "./coverage.ts";
import {
  openLiveContext,
  openTestContext,
  productOf,
  runWarmerRecorded,
  TEST_API_KEY,
} from "./harness.test-helper.ts";
import { FredSeriesAnswer } from "./series.ts";
import { readFredSettings } from "./settings.ts";
import { FredStatusAnswer } from "./status.ts";
import { FRED_WARMER, fredWarmer, warmFred } from "./warmer.ts";

async function statusOf(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "macro.fred.status").handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return FredStatusAnswer.parse(outcome.body);
}

async function coverageOf(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "macro.fred.coverage").handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return FredCoverageAnswer.parse(outcome.body);
}

describe("fred.series warmer against a live (loopback) FRED", () => {
  let live: Awaited<ReturnType<typeof openLiveContext>>;
  before(async () => {
    live = await openLiveContext({ FRED_SERIES: "gdp,DGS10,SP500" });
  });
  after(() => live.close());

  it("asks FRED for metadata, tags and observations as JSON with the key, from ten years back", async () => {
    const settings = readFredSettings(live.ctx.service.config.env);
    const counts = await warmFred(live.ctx, settings);
    assert.equal(counts.series, 3);
    assert.equal(counts.refreshed, 2);
    assert.equal(counts.refused, 1);
    assert.equal(counts.failed, 0);
    const paths = live.upstream.requests.map((u) => `${u.pathname}?${u.searchParams.get("series_id")}`);
    assert.deepEqual(paths, [
      "/fred/series?GDP",
      "/fred/series/tags?GDP",
      "/fred/series/observations?GDP",
      "/fred/series?DGS10",
      "/fred/series/tags?DGS10",
      "/fred/series/observations?DGS10",
      "/fred/series?SP500",
      "/fred/series/tags?SP500",
    ]);
    for (const url of live.upstream.requests) {
      assert.equal(url.searchParams.get("api_key"), TEST_API_KEY);
      assert.equal(url.searchParams.get("file_type"), "json");
    }
    const observations = live.upstream.requests[2]!;
    assert.equal(observations.searchParams.get("sort_order"), "asc");
    assert.equal(
      observations.searchParams.get("observation_start"),
      `${new Date().getUTCFullYear() - 10}-01-01`,
    );
  });

  it("serves live data without the sample warning and never shows the key", async () => {
    const outcome = await productOf(live.ctx, "macro.fred.series").handle(
      { query: { seriesId: "DGS10" }, body: undefined },
      live.ctx,
    );
    assert.equal(outcome.status, 200);
    const body = FredSeriesAnswer.parse(outcome.body);
    assert.doesNotMatch(body.notice, /RECORDED SAMPLE/);
    assert.match(body.notice, /^Source: Federal Reserve Bank of St\. Louis, FRED/);
    assert.ok(body.source.startsWith(`${live.upstream.baseUrl}/fred/series/observations?series_id=DGS10`));
    assert.doesNotMatch(JSON.stringify(body), new RegExp(TEST_API_KEY));
    assert.equal(body.latest?.date, "2026-11-19");
  });

  it("coverage lists the cached series and the refused one", async () => {
    const coverage = await coverageOf(live.ctx);
    assert.equal(coverage.count, 2);
    assert.deepEqual(
      coverage.series.map((s) => [s.seriesId, s.latestDate, s.recordedSample]),
      [
        ["DGS10", "2026-11-19", false],
        ["GDP", "2026-07-01", false],
      ],
    );
    assert.deepEqual(
      coverage.refused.map((s) => s.seriesId),
      ["SP500"],
    );
    assert.deepEqual(coverage.warmed, ["GDP", "DGS10", "SP500"]);
  });

  it("refreshes series cached on request too, and skips ids FRED does not know", async () => {
    await live.ctx.store.jobs.enqueue("fred-series", "UNRATE", { seriesId: "UNRATE" });
    await live.ctx.family.jobs!["fred-series"]!({ seriesId: "UNRATE" }, live.ctx);
    await live.ctx.family.jobs!["fred-series"]!({ seriesId: "NOSUCHSERIES" }, live.ctx);
    const counts = await runWarmerRecorded(
      fredWarmer(readFredSettings(live.ctx.service.config.env)),
      live.ctx,
    );
    assert.equal(counts.series, 4);
    assert.equal(counts.refreshed, 3);
    const status = await statusOf(live.ctx);
    assert.equal(status.configured, true);
    assert.equal(status.problem, null);
    assert.equal(status.warmer.lastOk, true);
    assert.equal(status.cachedSeries, 3);
    assert.equal(status.refusedSeries, 1);
    assert.equal(status.unknownSeries, 1);
    assert.equal(status.fresh, true);
    assert.equal(status.mode, "live");
    assert.equal(status.upstream, live.upstream.baseUrl);
  });
});

describe("fred.series warmer failures", () => {
  const opened: Array<{ close: () => Promise<void> }> = [];
  after(async () => {
    for (const o of opened) await o.close();
  });

  it("without FRED_API_KEY in live mode: fetches nothing and says why in the status", async () => {
    const ctx = await openTestContext({ UPSTREAMS: "live", FRED_REDISTRIBUTION: "permitted" });
    opened.push(ctx);
    const warmer = fredWarmer(readFredSettings(ctx.service.config.env));
    assert.equal(warmer.name, FRED_WARMER);
    await assert.rejects(runWarmerRecorded(warmer, ctx), /FRED_API_KEY is not set/);
    const status = await statusOf(ctx);
    assert.equal(status.configured, false);
    assert.match(status.problem ?? "", /FRED_API_KEY is not set/);
    assert.match(status.warmer.lastError ?? "", /FRED_API_KEY is not set/);
    assert.equal(status.fresh, false);
  });

  it("FRED's error for a rejected key fails the run with FRED's message and without the key", async () => {
    const live = await openLiveContext({ FRED_SERIES: "GDP,UNRATE" }, () => ({
      status: 400,
      headers: { "content-type": "application/json" },
      body: '{"error_code":400,"error_message":"Bad Request.  The value for variable api_key is not registered."}',
    }));
    opened.push(live);
    await assert.rejects(
      runWarmerRecorded(fredWarmer(readFredSettings(live.ctx.service.config.env)), live.ctx),
      /every FRED series failed .*api_key is not registered/,
    );
    const status = await statusOf(live.ctx);
    assert.match(status.warmer.lastError ?? "", /HTTP 400 .*api_key is not registered/);
    assert.doesNotMatch(JSON.stringify(status), new RegExp(TEST_API_KEY));
  });

  it("a server error after retries is reported without the key; other series still refresh", async () => {
    const live = await openLiveContext({ FRED_SERIES: "GDP,UNRATE" }, (url) =>
      url.searchParams.get("series_id") === "GDP"
        ? { status: 500, headers: { "retry-after": "0" }, body: "Internal Server Error" }
        : undefined,
    );
    opened.push(live);
    // Retry-After: 0 lets the client's retries run at once.
    const counts = await runWarmerRecorded(
      fredWarmer(readFredSettings(live.ctx.service.config.env)),
      live.ctx,
    );
    assert.equal(counts.failed, 1);
    assert.equal(counts.refreshed, 1);
    const errors = counts.errors as string[];
    assert.equal(live.upstream.requests.filter((u) => u.searchParams.get("series_id") === "GDP").length, 4);
    assert.match(errors[0] ?? "", /^GDP: fred: HTTP 500 from .*\/fred\/series\?series_id=GDP&file_type=json/);
    assert.doesNotMatch(JSON.stringify(await statusOf(live.ctx)), new RegExp(TEST_API_KEY));
  });
});
