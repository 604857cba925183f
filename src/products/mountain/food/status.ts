// GET /v1/food/status (free): every ski area and resort ring on file with restaurant and menu counts, the
// corridors, and the OSM warmer's state.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { newest } from "../data/views.ts";
import { OVERPASS_UPSTREAM } from "../osm/overpass.ts";
import { placeCatalog } from "../osm/place-catalog.ts";
import { RING_KM } from "../osm/targets.ts";
import { OSM_WARMER } from "../osm/warmer.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";

const Timestamp = z.iso.datetime().nullable();

const Fetch = {
  restaurants: z.number().int(),
  withMenu: z.number().int(),
  menuItems: z.number().int(),
  fetchedAt: Timestamp.describe("Last successful Overpass fetch"),
  lastError: z.string().nullable(),
  lastErrorAt: Timestamp,
};

export const FoodStatusAnswer = z.object({
  ok: z.literal(true),
  areas: z.array(
    z.object({
      area: z.string(),
      name: z.string(),
      country: z.string(),
      region: z.string(),
      bbox: z.object({ south: z.number(), west: z.number(), north: z.number(), east: z.number() }),
      ...Fetch,
    }),
  ),
  resorts: z.array(
    z.object({ resortId: z.string(), name: z.string(), country: z.string(), ringKm: z.number(), ...Fetch }),
  ),
  corridors: z.array(
    z.object({ corridorId: z.string(), name: z.string(), country: z.string(), resorts: z.array(z.string()) }),
  ),
  totals: z.object({
    restaurants: z.number().int(),
    withMenu: z.number().int(),
    menus: z.number().int(),
    menuItems: z.number().int(),
  }),
  warmer: z.object({
    name: z.string(),
    lastRunAt: Timestamp,
    lastOk: z.boolean().nullable(),
    lastSuccessAt: Timestamp,
    lastError: z.string().nullable(),
    counts: z.record(z.string(), z.unknown()).nullable(),
  }),
  index: z
    .object({
      places: z.number().int().nonnegative(),
      approximateBytes: z
        .number()
        .int()
        .nonnegative()
        .describe("Memory of the place columns and the spatial index on this node"),
      builtAt: z.iso.datetime(),
      buildMs: z.number().int().nonnegative(),
    })
    .describe("This node's in-memory place catalogue, which every food answer reads"),
  upstream: z.string().describe("Overpass API base URL in use"),
  mode: z.enum(["live", "replay"]),
  sampleData: z.boolean(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const foodStatus = product({
  sku: "food.status",
  method: "GET",
  path: "/v1/food/status",
  summary: "Every ski area on file with restaurant and menu counts (free)",
  description:
    "Free. Every ski area (bounding box) and resort ring (15 km around the arrival point) on file with its restaurant, " +
    "menu and menu-item counts and its last OpenStreetMap fetch or error; the corridors; the OSM warmer's last run.",
  status: "live",
  tags: ["food", "mountain", "status"],
  price: "0",
  answer: FoodStatusAnswer,
  source: OSM_SOURCE,

  async handle(_input, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    const menuCounts = db
      .selectFrom("mountain_menu_items")
      .innerJoin("mountain_menus", "mountain_menus.id", "mountain_menu_items.menu_id")
      .select(["mountain_menu_items.menu_id as menu_id", (eb) => eb.fn.countAll<string | number>().as("n")])
      .groupBy("mountain_menu_items.menu_id")
      .as("c");
    const [areas, resorts, corridors, targets, perTarget, menuCount, runs, catalog] = await Promise.all([
      db.selectFrom("mountain_areas").selectAll().execute(),
      db.selectFrom("mountain_resorts").selectAll().execute(),
      db.selectFrom("mountain_corridors").selectAll().execute(),
      db.selectFrom("mountain_osm_targets").selectAll().execute(),
      // Counted in the store: the places of a busy region are a million rows, never read here one by one.
      db
        .selectFrom("mountain_osm_places as p")
        .leftJoin(menuCounts, "c.menu_id", "p.id")
        .select((eb) => [
          "p.target",
          eb.fn.countAll<string | number>().as("restaurants"),
          eb.fn.count<string | number>("c.n").as("withMenu"),
          eb.fn.sum<string | number | null>("c.n").as("menuItems"),
        ])
        .groupBy("p.target")
        .execute(),
      db
        .selectFrom("mountain_menus")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .executeTakeFirstOrThrow(),
      ctx.store.warmerRuns.status(OSM_WARMER),
      placeCatalog(ctx),
    ]);
    const stateOf = new Map(targets.map((t) => [t.id, t]));
    const countsOf = new Map(perTarget.map((row) => [row.target, row]));
    const counts = (targetId: string) => {
      const found = countsOf.get(targetId);
      const state = stateOf.get(targetId);
      return {
        restaurants: Number(found?.restaurants ?? 0),
        withMenu: Number(found?.withMenu ?? 0),
        menuItems: Number(found?.menuItems ?? 0),
        fetchedAt: state?.fetched_at ?? null,
        lastError: state?.error ?? null,
        lastErrorAt: state?.error_at ?? null,
      };
    };
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    const places = catalog.byId;
    const { withMenu, menuItems } = places.menuTotals();
    let recordedSample = false;
    for (let i = 0; i < places.size && !recordedSample; i++) recordedSample = places.recordedSample(i);
    const sample = [...areas, ...resorts, ...corridors].some((r) => Number(r.sample) === 1) || recordedSample;
    return ok({
      ok: true as const,
      areas: areas.sort(byId).map((a) => ({
        area: a.id,
        name: a.name,
        country: a.country,
        region: a.region,
        bbox: { south: Number(a.south), west: Number(a.west), north: Number(a.north), east: Number(a.east) },
        ...counts(`area:${a.id}`),
      })),
      resorts: resorts.sort(byId).map((r) => ({
        resortId: r.id,
        name: r.name,
        country: r.country,
        ringKm: RING_KM,
        ...counts(`ring:${r.id}`),
      })),
      corridors: corridors.sort(byId).map((c) => ({
        corridorId: c.id,
        name: c.name,
        country: c.country,
        resorts: JSON.parse(c.resorts) as string[],
      })),
      totals: { restaurants: places.size, withMenu, menus: Number(menuCount.n), menuItems },
      warmer: {
        name: runs.warmer,
        lastRunAt: runs.lastRunAt,
        lastOk: runs.lastOk,
        lastSuccessAt: newest([runs.lastSuccessAt]),
        lastError: runs.lastError,
        counts: runs.counts,
      },
      index: {
        places: places.size,
        approximateBytes: places.byteLength + catalog.index.byteLength,
        builtAt: catalog.builtAt,
        buildMs: catalog.buildMs,
      },
      upstream: ctx.upstreams.client(OVERPASS_UPSTREAM).baseUrl,
      mode: ctx.upstreams.mode,
      sampleData: sample,
      generatedAt: new Date().toISOString(),
      notice: foodNotice(sample),
    });
  },
});
