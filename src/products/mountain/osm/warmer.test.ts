import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../../test/family-harness.ts";
import { ingest } from "../data/ingest.ts";
import { mountainDb } from "../data/schema.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../harness.test-helper.ts";
import { MOUNTAIN_RECORDINGS_DIR } from "../index.ts";
import { placeCatalog, placeDetails } from "./place-catalog.ts";
import { OSM_JOB_QUEUE, OSM_WARMER, runTargetJob, warmOsm } from "./warmer.ts";

const DAY_MS = 24 * 3600_000;

async function placesOf(ctx: FamilyTestContext, target: string) {
  const rows = await mountainDb(ctx.store)
    .selectFrom("mountain_osm_places")
    .select("id")
    .where("target", "=", target)
    .execute();
  return rows.map((r) => r.id).sort();
}

async function targetState(ctx: FamilyTestContext, id: string) {
  return mountainDb(ctx.store)
    .selectFrom("mountain_osm_targets")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
}

describe("mountain.osm warmer over the recordings (UPSTREAMS=replay)", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  it("is declared daily by default, and MOUNTAIN_OSM_REFRESH_HOURS changes it", async () => {
    assert.equal(ctx.family.warmers?.[0]?.name, OSM_WARMER);
    assert.equal(ctx.family.warmers?.[0]?.everyMs, DAY_MS);
    const other = await openTestContext({ MOUNTAIN_OSM_REFRESH_HOURS: "6" });
    assert.equal(other.family.warmers?.[0]?.everyMs, 6 * 3600_000);
    await other.close();
    await assert.rejects(
      openTestContext({ MOUNTAIN_OSM_REFRESH_HOURS: "0" }),
      /MOUNTAIN_OSM_REFRESH_HOURS: must be an integer from 1 to 720/,
    );
    await assert.rejects(
      openTestContext({ OVERPASS_BASE_URL: "ftp://x" }),
      /OVERPASS_BASE_URL: must be an http\(s\) URL/,
    );
  });

  it("loads the sample dataset and fetches each area bbox and resort ring once (normal and empty answers)", async () => {
    const counts = await runWarmerRecorded(ctx.family.warmers![0]!, ctx);
    assert.deepEqual(counts, { targets: 5, fetched: 5, fresh: 0, failed: 0, places: 18, errors: [] });
    assert.deepEqual(await placesOf(ctx, "area:sample-alpenrose-valley"), [
      "osm-node-900000000001",
      "osm-node-900000000002",
      "osm-node-900000000003",
      "osm-node-900000000004",
      "osm-way-900000000101",
    ]);
    assert.deepEqual(
      await placesOf(ctx, "area:sample-gletscher-plateau"),
      [],
      "the empty recording gives no places",
    );
    const empty = await targetState(ctx, "area:sample-gletscher-plateau");
    assert.ok(empty?.fetched_at, "an empty answer is a successful fetch");
    assert.equal(empty.places, 0);
    assert.equal((await placesOf(ctx, "ring:sample-alpenrose")).length, 7);
    const ring = await targetState(ctx, "ring:sample-silver-peak");
    assert.equal(ring?.places, 4);
    assert.equal(Number(ring?.recorded_sample), 1);
    assert.match(
      ring?.source_url ?? "",
      /^https:\/\/overpass-api\.de\/api\/interpreter\?data=%5Bout%3Ajson%5D/,
    );
  });

  it("indexes each place once, preferring the area's slug, with menu counts and the target's currency", async () => {
    const catalog = await placeCatalog(ctx);
    assert.equal(catalog.byId.size, 13);
    assert.equal(catalog.byId.get("osm-node-900000000001")?.menuItemCount, 5);
    const places = await placeDetails(ctx, catalog, [
      "osm-node-900000000001",
      "osm-node-900000000005",
      "osm-node-900000000201",
    ]);
    const edelweiss = places.get("osm-node-900000000001")!;
    assert.equal(edelweiss.area, "sample-alpenrose-valley");
    assert.equal(edelweiss.menuItemCount, 5);
    assert.equal(edelweiss.currency, "CHF");
    assert.equal(
      places.get("osm-node-900000000005")?.area,
      "sample-alpenrose-valley",
      "ring place takes the resort's area",
    );
    assert.equal(places.get("osm-node-900000000201")?.area, "sample-silver-peak", "no area: the resort id");
    assert.equal(places.get("osm-node-900000000201")?.currency, "USD");
  });

  it("skips targets fetched within the refresh period", async () => {
    assert.deepEqual(await warmOsm(ctx, DAY_MS), {
      targets: 5,
      fetched: 0,
      fresh: 5,
      failed: 0,
      places: 0,
      errors: [],
    });
    const later = new Date(Date.now() + DAY_MS);
    assert.equal((await warmOsm(ctx, DAY_MS, later)).fetched, 5);
  });

  it("an error inside an HTTP 200 fails that target only: its error is kept and the partial answer is not stored", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mountain-busy-"));
    const file = path.join(dir, "areas.csv");
    fs.writeFileSync(
      file,
      "id,name,country,region,south,west,north,east\nsample-busy-range,Sample Busy Range,ch,Valais,46.3,7.4,46.4,7.6\n",
    );
    await ingest(ctx.store, "areas", file);
    const counts = await warmOsm(ctx, DAY_MS, new Date(Date.now() + 2 * DAY_MS));
    assert.equal(counts.fetched, 5);
    assert.equal(counts.failed, 1);
    assert.match(
      counts.errors[0]!,
      /^area:sample-busy-range: overpass: query failed inside an HTTP 200: runtime error: Query timed out/,
    );
    const state = await targetState(ctx, "area:sample-busy-range");
    assert.equal(state?.fetched_at, null);
    assert.match(state?.error ?? "", /Query timed out/);
    assert.deepEqual(await placesOf(ctx, "area:sample-busy-range"), []);
    assert.equal((await placeCatalog(ctx)).byId.has("osm-node-900000000901"), false);
  });

  it("the single-target job fetches one target at once", async () => {
    await mountainDb(ctx.store)
      .deleteFrom("mountain_osm_places")
      .where("target", "=", "ring:sample-arlberg-west")
      .execute();
    await runTargetJob({ target: "ring:sample-arlberg-west" }, ctx);
    assert.deepEqual(await placesOf(ctx, "ring:sample-arlberg-west"), [
      "osm-node-900000000301",
      "osm-node-900000000302",
    ]);
    assert.deepEqual(Object.keys(ctx.family.jobs ?? {}), [OSM_JOB_QUEUE]);
    await runTargetJob({ target: "ring:no-such-resort" }, ctx);
  });

  it("writers refreshing one target at once (a warm and a buyer's miss, two nodes) leave its places once", async () => {
    const target = "ring:sample-arlberg-west";
    await Promise.all([1, 2, 3, 4].map(() => runTargetJob({ target }, ctx)));
    assert.deepEqual(await placesOf(ctx, target), ["osm-node-900000000301", "osm-node-900000000302"]);
  });
});

describe("mountain.osm warmer against a live (loopback) Overpass", () => {
  let upstream: LoopbackUpstream;
  let ctx: FamilyTestContext;
  let mode: "ok" | "fail" = "ok";
  const body = fs.readFileSync(path.join(MOUNTAIN_RECORDINGS_DIR, "ring-sample-arlberg-west.json"), "utf8");
  before(async () => {
    upstream = await startLoopbackUpstream(() =>
      mode === "ok"
        ? { status: 200, headers: { "content-type": "application/json" }, body }
        : {
            status: 400,
            headers: { "content-type": "text/html" },
            body: "<html><body>Error: line 1: parse error</body></html>",
          },
    );
    ctx = await openTestContext({ UPSTREAMS: "live", OVERPASS_BASE_URL: `${upstream.baseUrl}/api` });
    const dir = path.join(import.meta.dirname, "..", "sample-data");
    await ingest(ctx.store, "resorts", path.join(dir, "resorts.json")).catch(() => undefined);
    const areas = fs.mkdtempSync(path.join(os.tmpdir(), "mountain-live-"));
    fs.writeFileSync(
      path.join(areas, "resorts.json"),
      JSON.stringify(
        [JSON.parse(fs.readFileSync(path.join(dir, "resorts.json"), "utf8"))[2]].map(
          (r: Record<string, unknown>) => ({ ...r, area: undefined, sample: false }),
        ),
      ),
    );
    await ingest(ctx.store, "resorts", path.join(areas, "resorts.json"));
  });
  after(async () => {
    await ctx.close();
    await upstream.close();
  });

  it("sends one GET /interpreter?data=<Overpass QL> per target and stores live (not sample) places", async () => {
    const counts = await warmOsm(ctx, DAY_MS);
    assert.equal(counts.fetched, 1);
    assert.equal(upstream.requests.length, 1);
    const request = upstream.requests[0]!;
    assert.equal(request.pathname, "/api/interpreter");
    assert.equal(
      request.searchParams.get("data"),
      '[out:json][timeout:60];nwr["amenity"~"^(restaurant|cafe|bar|pub|fast_food)$"](around:15000,47.129,10.264);out center tags;',
    );
    const state = await targetState(ctx, "ring:sample-arlberg-west");
    assert.equal(Number(state?.recorded_sample), 0);
    assert.equal((await placeCatalog(ctx)).byId.get("osm-node-900000000301")?.recordedSample, false);
  });

  it("a refused query keeps the previous places and reports the upstream's error", async () => {
    mode = "fail";
    await assert.rejects(
      warmOsm(ctx, DAY_MS, new Date(Date.now() + DAY_MS)),
      /every Overpass target failed \(1\): ring:sample-arlberg-west: overpass: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/api\/interpreter: <html><body>Error: line 1: parse error/,
    );
    assert.deepEqual(await placesOf(ctx, "ring:sample-arlberg-west"), [
      "osm-node-900000000301",
      "osm-node-900000000302",
    ]);
    const state = await targetState(ctx, "ring:sample-arlberg-west");
    assert.ok(state?.fetched_at, "the last success is kept");
    assert.match(state?.error ?? "", /HTTP 400/);
  });
});
