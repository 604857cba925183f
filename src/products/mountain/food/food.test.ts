import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { ingest } from "../data/ingest.ts";
import {
  call,
  type LoopbackUpstream,
  openTestContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../harness.test-helper.ts";
import { destinationPoint } from "../shared/geo.ts";
import { FoodCorridorAnswer, foodCorridor } from "./corridor.ts";
import { FoodMenuAnswer, foodMenu } from "./menu.ts";
import { FoodNearAnswer, FoodNearQuery, foodNear } from "./near.ts";
import { FoodNearResortAnswer, foodNearResort } from "./near-resort.ts";
import { FoodStatusAnswer, foodStatus } from "./status.ts";
import { FoodVenuesAnswer, foodVenues } from "./venues.ts";

const ODBL =
  /© OpenStreetMap contributors, available under the Open Database License \(ODbL\) 1\.0 \(https:\/\/www\.openstreetmap\.org\/copyright\)/;
const SAMPLE = /^SAMPLE DATA, NOT REAL/;

describe("food endpoints over the sample dataset and recordings (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("before the OSM warmer has run: 404 not_cached (not charged) and the targets are queued", async () => {
    const near = await call(foodNear, { lat: "46.024", lon: "7.748" }, ctx);
    assert.equal(near.status, 404);
    assert.equal(near.body.error, "not_cached");
    assert.equal(near.body.charged, false);
    assert.ok(near.body.retryAfterSec > 0);
    assert.equal((await ctx.store.jobs.get("mountain-osm", "area:sample-alpenrose-valley"))?.state, "queued");
    assert.equal((await ctx.store.jobs.get("mountain-osm", "ring:sample-alpenrose"))?.state, "queued");
    const venues = await call(foodVenues, { country: "ch", area: "sample-alpenrose-valley" }, ctx);
    assert.equal(venues.body.error, "not_cached");
    const resort = await call(foodNearResort, { country: "ch", resort: "sample-alpenrose" }, ctx);
    assert.equal(resort.body.error, "not_cached");
    const menu = await call(foodMenu, { restaurantId: "osm-node-900000000001" }, ctx);
    assert.equal(menu.body.error, "not_cached");
    assert.match(menu.body.message, /^Restaurant osm-node-900000000001 is not cached yet;/);
    assert.match(near.body.message, /^Places around [-\d.,]+ are not cached yet;/);
    await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
  });

  it("near: nearest first within the default 2 km, every spec field, ODbL and sample notices", async () => {
    const { status, body } = await call(foodNear, { lat: "46.024", lon: "7.748" }, ctx);
    assert.equal(status, 200);
    FoodNearAnswer.parse(body);
    assert.deepEqual(Object.keys(body), [
      "lat",
      "lon",
      "radiusKm",
      "total",
      "count",
      "restaurants",
      "fetchedAt",
      "notice",
    ]);
    assert.equal(body.radiusKm, 2);
    assert.deepEqual(
      body.restaurants.map((r: { name: string; distanceKm: number }) => [r.name, r.distanceKm]),
      [
        ["Sample Bergrestaurant Edelweiss", 0.4],
        ["Sample Après Bar Schneestern", 0.6],
        ["Sample Café Gipfelblick", 0.8],
        ["Sample Pub Zum Steinbock", 1.601],
      ],
    );
    assert.equal(body.total, 4);
    assert.deepEqual(body.restaurants[0], {
      restaurantId: "osm-node-900000000001",
      name: "Sample Bergrestaurant Edelweiss",
      type: "restaurant",
      cuisine: ["regional", "swiss"],
      address: { street: "Sample Bergweg", housenumber: "3", postcode: "3920", city: "Sample Village" },
      lat: 46.0276,
      lon: 7.748,
      hours: "Mo-Su 11:00-22:00",
      phone: "+41 27 555 01 01",
      website: "https://sample-edelweiss.example/",
      currency: "CHF",
      menuItemCount: 5,
      osmUrl: "https://www.openstreetmap.org/node/900000000001",
      country: "ch",
      area: "sample-alpenrose-valley",
      distanceKm: 0.4,
    });
    assert.equal(body.restaurants[1].cuisine, undefined, "optional fields are left out when OSM has none");
    assert.match(body.notice, SAMPLE);
    assert.match(body.notice, ODBL);
  });

  it("near: radius up to 10 km, limit and type; total counts beyond the limit", async () => {
    const wide = (await call(foodNear, { lat: "46.024", lon: "7.748", radiusKm: "10", limit: "2" }, ctx))
      .body;
    assert.equal(wide.total, 6);
    assert.equal(wide.count, 2);
    assert.deepEqual(
      wide.restaurants.map((r: { distanceKm: number }) => r.distanceKm),
      [0.4, 0.6],
    );
    const cafes = (await call(foodNear, { lat: "46.024", lon: "7.748", radiusKm: "10", type: "cafe" }, ctx))
      .body;
    assert.deepEqual(
      cafes.restaurants.map((r: { restaurantId: string }) => r.restaurantId),
      ["osm-node-900000000002"],
    );
    const none = (await call(foodNear, { lat: "46.024", lon: "7.748", radiusKm: "0.1" }, ctx)).body;
    assert.deepEqual([none.total, none.count, none.restaurants], [0, 0, []]);
  });

  it("near: radius, limit, coordinates and type are checked before payment", () => {
    const issue = (params: Record<string, string>) => {
      const result = FoodNearQuery.safeParse(params);
      assert.equal(result.success, false, JSON.stringify(params));
      const first = result.error!.issues[0]!;
      return `${first.path.join(".")}: ${first.message}`;
    };
    assert.equal(
      issue({ lat: "46", lon: "7", radiusKm: "10.5" }),
      "radiusKm: must be a number above 0 and at most 10",
    );
    assert.equal(
      issue({ lat: "46", lon: "7", radiusKm: "0" }),
      "radiusKm: must be a number above 0 and at most 10",
    );
    assert.equal(
      issue({ lat: "46", lon: "7", radiusKm: "" }),
      "radiusKm: must be a number above 0 and at most 10",
    );
    assert.equal(issue({ lat: "91", lon: "7" }), "lat: must be a number from -90 to 90");
    assert.equal(issue({ lat: "46", lon: "1e309" }), "lon: must be a number from -180 to 180");
    assert.equal(issue({ lat: "46" }), "lon: must be a number from -180 to 180");
    assert.equal(issue({ lat: "46", lon: "7", limit: "2.5" }), "limit: must be an integer from 1 to 500");
    assert.equal(
      issue({ lat: "46", lon: "7", type: "nightclub" }),
      "type: must be one of restaurant, cafe, bar, pub, fast_food",
    );
    assert.deepEqual(FoodNearQuery.parse({ lat: " 46.5 ", lon: "-7" }), {
      lat: 46.5,
      lon: -7,
      radiusKm: 2,
      limit: 50,
    });
  });

  it("near: a point outside every covered area is a 404 before payment", async () => {
    const outcome = await foodNear.check!(
      { query: FoodNearQuery.parse({ lat: "0", lon: "0" }), body: undefined },
      ctx,
    );
    assert.equal(outcome?.status, 404);
    assert.equal(outcome?.body.charged, false);
    assert.match(outcome?.body.message ?? "", /No ski area or resort on file covers 0,0; \/v1\/food\/status/);
  });

  it("near-resort: the near tier with every menu in it, and the other tier's counts, price and URL", async () => {
    const { status, body } = await call(foodNearResort, { country: "ch", resort: "sample-alpenrose" }, ctx);
    assert.equal(status, 200);
    FoodNearResortAnswer.parse(body);
    assert.equal(body.tier, "near");
    assert.deepEqual(body.ringKm, { from: 0, to: 1 });
    assert.deepEqual(body.measuredFrom, {
      name: "Sample Talstation Alpenrose",
      kind: "main_lift",
      lat: 46.024,
      lon: 7.748,
    });
    assert.deepEqual(Object.keys(body.resort), [
      "resortId",
      "name",
      "region",
      "state",
      "operator",
      "officialSite",
      "officialBookingUrl",
      "priceListUrl",
      "currency",
      "lat",
      "lon",
      "location",
      "locationName",
      "country",
    ]);
    assert.deepEqual([body.total, body.withMenu, body.count], [3, 2, 3]);
    assert.deepEqual(
      body.menus.map((m: { restaurantId: string; items: unknown[] }) => [m.restaurantId, m.items.length]),
      [
        ["osm-node-900000000001", 5],
        ["osm-node-900000000002", 3],
      ],
    );
    assert.deepEqual(body.menus[1].source, {
      kind: "delivery_app",
      app: "Sample Delivery App",
      url: "https://delivery.example/sample-cafe-gipfelblick",
      menuType: "cafe",
    });
    assert.deepEqual(body.menus[0].items[0], {
      name: "Sample Rösti mit Spiegelei",
      price: 24.5,
      category: "main",
    });
    assert.deepEqual(body.otherTier, {
      tier: "around",
      ringKm: { from: 1, to: 15 },
      restaurants: 4,
      withMenu: 1,
      priceUsd: "0.02",
      url: "http://localhost:4021/v1/food/near-resort?country=ch&resort=sample-alpenrose&tier=around",
    });
    assert.match(body.notice, ODBL);
    assert.match(body.notice, /Menus and prices are curated/);
  });

  it("near-resort: the around tier, a type filter, and resort errors", async () => {
    const around = (
      await call(
        foodNearResort,
        { country: "ch", resort: "sample-alpenrose", tier: "around", type: "restaurant" },
        ctx,
      )
    ).body;
    assert.deepEqual(
      around.restaurants.map((r: { name: string; distanceKm: number }) => [r.name, r.distanceKm]),
      [
        ["Sample Pizzeria Matterblick", 2.502],
        ["Sample Gletscher Lounge", 12.009],
      ],
    );
    assert.equal(around.otherTier.restaurants, 1, "the other tier counts with the same type filter");
    assert.match(around.otherTier.url, /tier=near&type=restaurant$/);
    const unknown = await call(foodNearResort, { country: "ch", resort: "no-such-resort" }, ctx);
    assert.deepEqual([unknown.status, unknown.body.error, unknown.body.charged], [404, "not_found", false]);
    const elsewhere = await call(foodNearResort, { country: "at", resort: "sample-alpenrose" }, ctx);
    assert.match(elsewhere.body.message, /is in country ch, not at/);
    const state = await call(foodNearResort, { country: "ch", resort: "sample-alpenrose", state: "CO" }, ctx);
    assert.deepEqual([state.status, state.body.parameter], [400, "state"]);
    const wrongState = await call(
      foodNearResort,
      { country: "us", resort: "sample-silver-peak", state: "UT" },
      ctx,
    );
    assert.equal(wrongState.status, 404);
    assert.equal(
      (await call(foodNearResort, { country: "us", resort: "sample-silver-peak", state: "co" }, ctx)).status,
      200,
    );
  });

  it("menu: the restaurant's fields with meal periods, source and every item; none without items", async () => {
    const { status, body } = await call(foodMenu, { restaurantId: "osm-way-900000000101" }, ctx);
    assert.equal(status, 200);
    FoodMenuAnswer.parse(body);
    assert.equal(body.name, "Sample Pizzeria Matterblick");
    assert.equal(body.osmUrl, "https://www.openstreetmap.org/way/900000000101");
    assert.equal(body.menuItemCount, 4);
    assert.deepEqual(body.mealPeriods, ["lunch", "dinner"]);
    assert.deepEqual(body.menuSource, {
      kind: "website",
      app: null,
      url: "https://sample-matterblick.example/menu",
      menuType: "a-la-carte",
      menuDate: "2026-09-30",
      collectedAt: "2026-11-05",
    });
    assert.deepEqual(body.menuItems[0], {
      name: "Sample Pizza Margherita",
      price: 21,
      currency: "CHF",
      category: "pizza",
      portion: "32 cm",
    });
    assert.equal(body.menuItems.length, 4);
    assert.match(body.notice, ODBL);
    const none = await call(foodMenu, { restaurantId: "osm-node-900000000003" }, ctx);
    assert.deepEqual([none.status, none.body.charged], [404, false]);
    assert.match(none.body.message, /only restaurants whose menuItemCount is above 0 have a menu/);
  });

  it("venues: every place in the area's box, sorted by name, with the bbox", async () => {
    const { status, body } = await call(foodVenues, { country: "CH", area: "sample-alpenrose-valley" }, ctx);
    assert.equal(status, 200);
    FoodVenuesAnswer.parse(body);
    assert.deepEqual(body.bbox, { south: 45.98, west: 7.7, north: 46.06, east: 7.8 });
    assert.equal(body.count, 5);
    const names = body.restaurants.map((r: { name: string }) => r.name);
    assert.deepEqual(
      names,
      [...names].sort((a: string, b: string) => a.localeCompare(b)),
    );
    assert.equal(body.restaurants[0].distanceKm, undefined);
    const empty = (await call(foodVenues, { country: "at", area: "sample-gletscher-plateau" }, ctx)).body;
    assert.deepEqual([empty.count, empty.restaurants], [0, []]);
    assert.equal(
      (await call(foodVenues, { country: "at", area: "sample-alpenrose-valley" }, ctx)).status,
      404,
    );
    assert.equal((await call(foodVenues, { country: "ch", area: "nowhere" }, ctx)).status, 404);
  });

  it("corridor: places within the buffer of the route, in route order; id or corridor", async () => {
    const { status, body } = await call(foodCorridor, { id: "sample-alpenrose-valley-road" }, ctx);
    assert.equal(status, 200);
    FoodCorridorAnswer.parse(body);
    assert.equal(body.bufferKm, 1);
    assert.deepEqual(
      body.restaurants.map((r: { name: string; routeKm: number; distanceKm: number }) => [
        r.name,
        r.routeKm,
        r.distanceKm,
      ]),
      [
        ["Sample Pub Zum Steinbock", 3.98, 0.525],
        ["Sample Bergrestaurant Edelweiss", 5.114, 0.131],
        ["Sample Café Gipfelblick", 5.23, 0.756],
        ["Sample Après Bar Schneestern", 5.492, 0.6],
      ],
    );
    assert.ok(body.lengthKm > 5 && body.lengthKm < 6);
    assert.deepEqual(foodCorridor.aliases, { corridor: "id" });
    assert.equal((await call(foodCorridor, { id: "no-such-road" }, ctx)).status, 404);
  });

  it("status: every area and resort ring with restaurant and menu counts, corridors, the warmer", async () => {
    const { body } = await call(foodStatus, {}, ctx);
    FoodStatusAnswer.parse(body);
    assert.deepEqual(
      body.areas.map((a: { area: string; restaurants: number; withMenu: number; menuItems: number }) => [
        a.area,
        a.restaurants,
        a.withMenu,
        a.menuItems,
      ]),
      [
        ["sample-alpenrose-valley", 5, 3, 12],
        ["sample-gletscher-plateau", 0, 0, 0],
      ],
    );
    assert.deepEqual(
      body.resorts.map((r: { resortId: string; restaurants: number }) => [r.resortId, r.restaurants]),
      [
        ["sample-alpenrose", 7],
        ["sample-arlberg-west", 2],
        ["sample-silver-peak", 4],
      ],
    );
    assert.deepEqual(body.totals, { restaurants: 13, withMenu: 5, menus: 5, menuItems: 19 });
    // This node's place catalogue: the 13 places in columns and their spatial index, kilobytes.
    assert.equal(body.index.places, 13);
    assert.ok(body.index.approximateBytes > 500 && body.index.approximateBytes < 20_000);
    assert.ok(Date.parse(body.index.builtAt) <= Date.now());
    assert.equal(body.warmer.lastOk, true);
    assert.equal(body.mode, "replay");
    assert.equal(body.sampleData, true);
    assert.equal(body.upstream, "https://overpass-api.de/api");
    assert.match(body.notice, ODBL);
  });
});

describe("near-resort tier boundaries against a live (loopback) Overpass", () => {
  const arrival = { lat: 47.2, lon: 11.3 };
  const kms = [0.5, 0.999, 1.001, 14.999, 15.001];
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  before(async () => {
    const elements = kms.map((km, i) => ({
      type: "node",
      id: 1000 + i,
      ...destinationPoint(arrival.lat, arrival.lon, 30 + i * 70, km),
      tags: { amenity: "restaurant", name: `At ${km} km` },
    }));
    upstream = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version: 0.6, elements }),
    }));
    ctx = await openTestContext({ UPSTREAMS: "live", OVERPASS_BASE_URL: upstream.baseUrl });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mountain-tiers-")), "resorts.json");
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          id: "tier-test",
          name: "Tier Test",
          country: "at",
          region: "Tirol",
          operator: "Test",
          officialSite: "https://t.example/",
          officialBookingUrl: "https://t.example/b",
          priceListUrl: "https://t.example/p",
          currency: "EUR",
          lat: arrival.lat,
          lon: arrival.lon,
          location: "ticket_office",
          locationName: "Test ticket office",
        },
      ]),
    );
    await ingest(ctx.store, "resorts", file);
    await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  it("a place at 0.999 km is near, one at 1.001 km is around, and 15.001 km is in neither", async () => {
    const near = (await call(foodNearResort, { country: "at", resort: "tier-test", tier: "near" }, ctx)).body;
    assert.deepEqual(
      near.restaurants.map((r: { name: string; distanceKm: number }) => [r.name, r.distanceKm]),
      [
        ["At 0.5 km", 0.5],
        ["At 0.999 km", 0.999],
      ],
    );
    const around = (await call(foodNearResort, { country: "at", resort: "tier-test", tier: "around" }, ctx))
      .body;
    assert.deepEqual(
      around.restaurants.map((r: { name: string }) => r.name),
      ["At 1.001 km", "At 14.999 km"],
    );
    assert.equal(near.otherTier.restaurants, 2);
    assert.equal(around.otherTier.restaurants, 2);
    assert.doesNotMatch(near.notice, /SAMPLE/, "live data is not called a sample");
    assert.match(near.notice, ODBL);
  });
});
