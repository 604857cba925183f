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
    const [areas, resorts, corridors, targets, places, menuCount, runs, catalog] = await Promise.all([
      db.selectFrom("mountain_areas").selectAll().execute(),
      db.selectFrom("mountain_resorts").selectAll().execute(),
      db.selectFrom("mountain_corridors").selectAll().execute(),
      db.selectFrom("mountain_osm_targets").selectAll().execute(),
      db.selectFrom("mountain_osm_places").select(["target", "id"]).execute(),
      db
        .selectFrom("mountain_menus")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .executeTakeFirstOrThrow(),
      ctx.store.warmerRuns.status(OSM_WARMER),
      placeCatalog(ctx),
    ]);
    const stateOf = new Map(targets.map((t) => [t.id, t]));
    const idsOf = new Map<string, string[]>();
    for (const p of places) idsOf.set(p.target, [...(idsOf.get(p.target) ?? []), p.id]);
    const counts = (targetId: string) => {
      const ids = idsOf.get(targetId) ?? [];
      const state = stateOf.get(targetId);
      const menus = ids.map((id) => catalog.byId.get(id)?.menuItemCount ?? 0);
      return {
        restaurants: ids.length,
        withMenu: menus.filter((n) => n > 0).length,
        menuItems: menus.reduce((a, b) => a + b, 0),
        fetchedAt: state?.fetched_at ?? null,
        lastError: state?.error ?? null,
        lastErrorAt: state?.error_at ?? null,
      };
    };
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    const all = [...catalog.byId.values()];
    const sample =
      [...areas, ...resorts, ...corridors].some((r) => Number(r.sample) === 1) ||
      all.some((p) => p.recordedSample);
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
      totals: {
        restaurants: all.length,
        withMenu: all.filter((p) => p.menuItemCount > 0).length,
        menus: Number(menuCount.n),
        menuItems: all.reduce((sum, p) => sum + p.menuItemCount, 0),
      },
      warmer: {
        name: runs.warmer,
        lastRunAt: runs.lastRunAt,
        lastOk: runs.lastOk,
        lastSuccessAt: newest([runs.lastSuccessAt]),
        lastError: runs.lastError,
        counts: runs.counts,
      },
      upstream: ctx.upstreams.client(OVERPASS_UPSTREAM).baseUrl,
      mode: ctx.upstreams.mode,
      sampleData: sample,
      generatedAt: new Date().toISOString(),
      notice: foodNotice(sample),
    });
  },
});
