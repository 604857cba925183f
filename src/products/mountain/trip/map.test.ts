import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { call, openTestContext, runWarmerRecorded } from "../harness.test-helper.ts";
import { TripMapAnswer, tripMap } from "./map.ts";

describe("trip.map over the sample dataset (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("before the OSM warmer: food steps count 0 with no last update, and the resort's ring is queued", async () => {
    const { body } = await call(tripMap, { country: "ch", resort: "sample-alpenrose" }, ctx);
    const food = body.steps.find((s: { step: string }) => s.step === "food-near");
    assert.deepEqual([food.count, food.lastUpdate], [0, null]);
    assert.equal((await ctx.store.jobs.get("mountain-osm", "ring:sample-alpenrose"))?.state, "queued");
    await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
  });

  it("lists each paid step with its count, last update, price and URL, a tripId and the bundle price", async () => {
    const { status, body } = await call(tripMap, { country: "ch", resort: "sample-alpenrose" }, ctx);
    assert.equal(status, 200);
    TripMapAnswer.parse(body);
    assert.deepEqual(
      body.steps.map((s: { step: string; sku: string; count: number; priceUsd: string }) => [
        s.step,
        s.sku,
        s.count,
        s.priceUsd,
      ]),
      [
        ["resort", "ski.resort", 1, "0.01"],
        ["prices", "ski.prices", 36, "0.01"],
        ["quote", "ski.quote", 6, "0.01"],
        ["food-near", "food.near-resort", 3, "0.02"],
        ["food-around", "food.near-resort", 4, "0.02"],
        ["corridor", "food.corridor", 4, "0.01"],
        ["insider-tip", "insider.info", 1, "1.00"],
      ],
    );
    assert.equal(body.bundlePriceUsd, "1.08");
    assert.equal(body.stepCount, 7);
    assert.match(body.tripId, /^trip_[0-9a-f]{20}$/);
    assert.equal(
      body.steps[3].url,
      "http://localhost:4021/v1/food/near-resort?country=ch&resort=sample-alpenrose&tier=near",
    );
    assert.equal(
      body.steps[6].url,
      "http://localhost:4021/v1/insider-info?id=sample-tip-alpenrose-early-opening",
    );
    assert.match(
      body.steps[2].url,
      /\/v1\/ski\/quote\?country=ch&resort=sample-alpenrose&ticketType=1-day&ageBand=adult$/,
    );
    for (const step of body.steps) assert.ok(step.lastUpdate, `${step.step} has a last update`);
    assert.match(body.notice, /SAMPLE DATA, NOT REAL/);
    assert.match(body.notice, /OpenStreetMap contributors/);
    const again = (await call(tripMap, { country: "ch", resort: "sample-alpenrose" }, ctx)).body;
    assert.equal(again.tripId, body.tripId, "the same steps and data give the same tripId");
  });

  it("country-wide tips join the resort's own; an unknown resort is a 404", async () => {
    const { body } = await call(tripMap, { country: "at", resort: "sample-arlberg-west" }, ctx);
    assert.deepEqual(
      body.steps
        .filter((s: { step: string }) => s.step === "insider-tip")
        .map((s: { url: string }) => s.url.split("id=")[1]),
      ["sample-tip-arlberg-breakfast", "sample-tip-tirol-road"],
    );
    assert.equal((await call(tripMap, { country: "at", resort: "nowhere" }, ctx)).status, 404);
    assert.equal(tripMap.price, "0");
  });
});
