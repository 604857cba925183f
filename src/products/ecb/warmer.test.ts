import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { EcbFxAnswer, ecbFx } from "./fx.ts";
import { type LoopbackUpstream, openTestContext, startLoopbackUpstream } from "./harness.test-helper.ts";
import { ECB_RECORDINGS_DIR } from "./index.ts";
import { EXR_DAILY_PATH, startPeriodFor } from "./upstream.ts";
import { ECB_FAMILY, ECB_INDEX_KEY, type EcbIndex, ecbFxWarmer, warmEcbFx } from "./warmer.ts";

const recordedCsv = fs.readFileSync(path.join(ECB_RECORDINGS_DIR, "exr-daily.csv"), "utf8");

describe("ecb.fx warmer against a live (loopback) upstream", () => {
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  before(async () => {
    upstream = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "text/csv; charset=utf-8" },
      body: recordedCsv,
    }));
    ctx = await openTestContext({ UPSTREAMS: "live", ECB_BASE_URL: upstream.baseUrl });
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  it("is declared to run daily", () => {
    assert.equal(ecbFxWarmer.name, "ecb.fx");
    assert.equal(ecbFxWarmer.everyMs, 24 * 3600_000);
  });

  it("asks for every currency's daily rates as CSV from about three months back, in one request", async () => {
    const now = new Date("2026-11-20T16:30:00Z");
    const counts = await warmEcbFx(ctx, now);
    assert.deepEqual(counts, { currencies: 23, observations: 1610, latestDate: "2026-11-20" });
    assert.equal(upstream.requests.length, 1);
    const request = upstream.requests[0]!;
    assert.equal(request.pathname, EXR_DAILY_PATH);
    assert.deepEqual(Object.fromEntries(request.searchParams), {
      format: "csvdata",
      startPeriod: "2026-08-17",
    });
    assert.equal(startPeriodFor(now), "2026-08-17");
  });

  it("writes one document per currency and an index of currencies with titles and latest dates", async () => {
    const keys = await ctx.store.cache.keys(ECB_FAMILY);
    assert.equal(keys.length, 24);
    assert.ok(keys.includes(ECB_INDEX_KEY) && keys.includes("USD") && keys.includes("JPY"));
    const index = await ctx.store.cache.get<EcbIndex>(ECB_FAMILY, ECB_INDEX_KEY);
    assert.equal(index?.recordedSample, false);
    assert.equal(index.body.latestDate, "2026-11-20");
    assert.deepEqual(
      index.body.currencies.find((c) => c.currency === "USD"),
      { currency: "USD", title: "US dollar", latestDate: "2026-11-20", count: 70 },
    );
  });

  it("serves live data without the recorded-sample warning, citing the URL it came from", async () => {
    const outcome = await ecbFx.handle({ query: { pair: "USD" }, body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    const body = EcbFxAnswer.parse(outcome.body);
    assert.doesNotMatch(body.notice, /RECORDED SAMPLE/);
    assert.match(body.notice, /^Source: European Central Bank \(ECB\), Data Portal/);
    assert.equal(body.source, `${upstream.baseUrl}${EXR_DAILY_PATH}?format=csvdata&startPeriod=2026-08-17`);
  });
});
