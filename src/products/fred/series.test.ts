import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { SERIES_QUEUE } from "./documents.ts";
import { openTestContext, productOf } from "./harness.test-helper.ts";
import { seriesJobHandler } from "./jobs.ts";
import { FredSeriesAnswer, FredSeriesQuery, SERIES_RETRY_AFTER_SEC } from "./series.ts";
import { readFredSettings } from "./settings.ts";

function queryOf(params: Record<string, string>) {
  return FredSeriesQuery.parse(
    Object.fromEntries(Object.entries(params).map(([k, v]) => [k === "id" ? "seriesId" : k, v])),
  );
}

function issueOf(params: Record<string, unknown>) {
  const result = FredSeriesQuery.safeParse(params);
  assert.equal(result.success, false, `expected ${JSON.stringify(params)} to be rejected`);
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("macro.fred.series query", () => {
  it("takes a series id in any case, with id as an alias", () => {
    assert.deepEqual(queryOf({ seriesId: " unrate " }), { seriesId: "UNRATE" });
    assert.deepEqual(queryOf({ id: "DGS10" }), { seriesId: "DGS10" });
  });

  it("rejects missing, empty and malformed ids naming seriesId", () => {
    assert.match(issueOf({}).message, /seriesId is required/);
    for (const seriesId of ["", "  ", "GDP;DROP", "../GDP", "A".repeat(41), "ünrate", "GDP UNRATE"]) {
      const issue = issueOf({ seriesId });
      assert.equal(issue.path, "seriesId", seriesId);
      assert.match(issue.message, /seriesId/, seriesId);
    }
  });
});

describe("macro.fred.series over the recorded samples (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  let series: ReturnType<typeof productOf>;
  const runJob = async (seriesId: string) => seriesJobHandler(readFredSettings({}))({ seriesId }, ctx);
  before(async () => {
    ctx = await openTestContext();
    series = productOf(ctx, "macro.fred.series");
  });
  after(() => ctx.close());

  it("declares its catalog entry", () => {
    assert.equal(series.path, "/v1/macro/fred/series");
    assert.equal(series.price, "0.005");
    assert.deepEqual(series.aliases, { id: "seriesId" });
    assert.deepEqual(series.sample, { seriesId: "GDP" });
  });

  it("an uncached series: passes the check, answers 404 not_cached once queued, and queues it only once", async () => {
    const input = { query: queryOf({ id: "unrate" }), body: undefined };
    assert.equal(await series.check?.(input, ctx), undefined);
    const outcome = await series.handle(input, ctx);
    assert.equal(outcome.status, 404);
    assert.equal(outcome.body.error, "not_cached");
    assert.equal(outcome.body.charged, false);
    assert.equal(outcome.body.retryAfterSec, SERIES_RETRY_AFTER_SEC);
    await series.handle(input, ctx);
    assert.deepEqual(await ctx.store.jobs.counts(SERIES_QUEUE), { queued: 1, running: 0, done: 0, dead: 0 });
    const job = await ctx.store.jobs.get(SERIES_QUEUE, "UNRATE");
    assert.deepEqual(JSON.parse(job!.payload), { seriesId: "UNRATE" });
  });

  it("once the job has run: the spec's fields, string values, '.' kept, latest with a value", async () => {
    await runJob("UNRATE");
    const outcome = await series.handle({ query: queryOf({ seriesId: "UNRATE" }), body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    const body = FredSeriesAnswer.parse(outcome.body);
    assert.deepEqual(Object.keys(outcome.body as object), [
      "ok",
      "seriesId",
      "title",
      "units",
      "frequency",
      "seasonalAdjustment",
      "lastUpdated",
      "latest",
      "count",
      "observations",
      "copyright",
      "owners",
      "source",
      "fetchedAt",
      "notice",
    ]);
    assert.equal(body.seriesId, "UNRATE");
    assert.equal(body.title, "Unemployment Rate");
    assert.equal(body.units, "Percent");
    assert.equal(body.frequency, "Monthly");
    assert.equal(body.seasonalAdjustment, "Seasonally Adjusted");
    assert.equal(body.lastUpdated, "2026-11-07T13:48:02.000Z");
    assert.equal(body.count, 130);
    assert.equal(body.observations.length, 130);
    assert.deepEqual(body.latest, body.observations.at(-1));
    assert.equal(typeof body.latest?.value, "string");
    assert.deepEqual(
      body.observations.find((o) => o.date === "2025-10-01"),
      { date: "2025-10-01", value: "." },
    );
    assert.equal(body.copyright, "public domain: citation requested");
    assert.match(body.source, /\/fred\/series\/observations\?series_id=UNRATE&.*file_type=json/);
    assert.doesNotMatch(body.source, /api_key/);
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);
    assert.match(body.notice, /This product uses the FRED® API but is not endorsed or certified/);
    assert.match(body.notice, /fred\.stlouisfed\.org\/series\/UNRATE/);
    assert.ok(Date.now() - Date.parse(body.fetchedAt) < 60_000);
  });

  it("refuses a series whose owner forbids resale, before payment, with the reason", async () => {
    const input = { query: queryOf({ seriesId: "SP500" }), body: undefined };
    assert.equal(await series.check?.(input, ctx), undefined, "unknown until fetched");
    assert.equal((await series.handle(input, ctx)).status, 404);
    await runJob("SP500");
    const refused = await series.check?.(input, ctx);
    assert.equal(refused?.status, 400);
    assert.equal(refused.body.error, "series_not_for_sale");
    assert.equal(refused.body.parameter, "seriesId");
    assert.equal(refused.body.charged, false);
    assert.match(refused.body.message, /SP500 is not for sale here.*pre-approval required/);
    const handled = await series.handle(input, ctx);
    assert.equal(handled.status, 400);
    assert.equal(handled.body.error, "series_not_for_sale");
  });

  it("an id FRED does not know: 404 not_found before payment, not queued again", async () => {
    const input = { query: queryOf({ seriesId: "NOSUCHSERIES" }), body: undefined };
    await series.handle(input, ctx);
    await runJob("NOSUCHSERIES");
    const outcome = await series.check?.(input, ctx);
    assert.equal(outcome?.status, 404);
    assert.equal(outcome.body.error, "not_found");
    assert.equal(outcome.body.charged, false);
    assert.match(outcome.body.message, /FRED has no series NOSUCHSERIES.*The series does not exist/);
  });

  it("the job fails (and will be retried) when FRED cannot be reached for the series", async () => {
    await assert.rejects(runJob("PAYEMS"), /no recording answers GET \/fred\/series/);
    await assert.rejects(
      seriesJobHandler(readFredSettings({}))({ seriesId: "bad id" }, ctx),
      /valid seriesId/,
    );
  });
});

describe("macro.fred.series without FRED_API_KEY (UPSTREAMS=live)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext({ UPSTREAMS: "live", FRED_REDISTRIBUTION: "permitted" });
  });
  after(() => ctx.close());

  it("answers 503 before payment for an uncached series and queues nothing", async () => {
    const series = productOf(ctx, "macro.fred.series");
    const input = { query: queryOf({ seriesId: "GDP" }), body: undefined };
    const outcome = await series.check?.(input, ctx);
    assert.equal(outcome?.status, 503);
    assert.equal(outcome.body.charged, false);
    assert.match(outcome.body.message, /FRED_API_KEY is not set/);
    assert.equal((await series.handle(input, ctx)).status, 503);
    assert.deepEqual(await ctx.store.jobs.counts(SERIES_QUEUE), { queued: 0, running: 0, done: 0, dead: 0 });
  });
});
