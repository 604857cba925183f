import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runWarmerRecorded, startLoopbackUpstream } from "../../../test/family-harness.ts";
import { openWeatherContext, recordedBody } from "./harness.test-helper.ts";
import { Deadline, keys, lookupForecast, WEATHER_CACHE } from "./lookup.ts";
import { readWeatherSettings } from "./settings.ts";
import { weatherWarmer } from "./warmer.ts";

describe("weather warmer and caching", () => {
  it("warms the configured points from the recordings; points without a recording count as failed", async () => {
    const env = { WEATHER_WARM_POINTS: "39.7456,-97.0892;40.7128,-74.006" };
    const ctx = await openWeatherContext(env);
    try {
      const counts = await runWarmerRecorded(weatherWarmer(readWeatherSettings(env)), ctx);
      assert.deepEqual(counts, { points: 2, fresh: 1, failed: 1 });
      assert.ok(await ctx.store.cache.get(WEATHER_CACHE, keys.forecast({ wfo: "TOP", x: 32, y: 81 }, false)));
    } finally {
      await ctx.close();
    }
  });

  it("a forecast is cached until NWS's Expires, then asked again", async () => {
    let expires = new Date(Date.now() + 120_000).toUTCString();
    const nws = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "application/geo+json", expires },
      body: recordedBody("forecast-sample"),
    }));
    const ctx = await openWeatherContext({ UPSTREAMS: "live", NWS_BASE_URL: nws.baseUrl });
    const cell = { wfo: "TOP", x: 32, y: 81 };
    try {
      const first = await lookupForecast(ctx, cell, false, new Deadline());
      assert.ok(first.ok);
      const ttl = Date.parse(first.doc.expiresAt ?? "") - Date.now();
      assert.ok(ttl > 100_000 && ttl <= 120_000, `ttl ${ttl}`);
      await lookupForecast(ctx, cell, false, new Deadline());
      assert.equal(nws.requests.length, 1);
      await ctx.store.cache.put(WEATHER_CACHE, keys.forecast(cell, false), {
        ...first.doc,
        expiresAt: new Date(Date.now() - 1).toISOString(),
      });
      expires = new Date(Date.now() + 600_000).toUTCString();
      const third = await lookupForecast(ctx, cell, false, new Deadline());
      assert.equal(nws.requests.length, 2);
      assert.ok(third.ok && Date.parse(third.doc.expiresAt ?? "") - Date.now() > 500_000);
    } finally {
      await ctx.close();
      await nws.close();
    }
  });

  it("WEATHER_WARM_POINTS refuses points outside the US", () => {
    assert.throws(() => readWeatherSettings({ WEATHER_WARM_POINTS: "48.85,2.35" }), /WEATHER_WARM_POINTS/);
    assert.deepEqual(readWeatherSettings({ WEATHER_WARM_POINTS: "none" }).warmPoints, []);
    assert.equal(readWeatherSettings({}).warmPoints.length, 9);
  });
});
