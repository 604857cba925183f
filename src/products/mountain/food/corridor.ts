// GET /v1/food/corridor: the restaurants along a curated travel corridor (e.g. the road up to a resort), in
// route order.
import { z } from "zod";
import { type HandlerContext, notFound, ok, product } from "../../../catalog/product.ts";
import { isError } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { corridorView, newest } from "../data/views.ts";
import { placeCatalog, withDetails } from "../osm/place-catalog.ts";
import { roundKm } from "../shared/geo.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";
import { slugParam } from "../shared/params.ts";
import { placesAlongRoute, routeLengthKm } from "./corridor-route.ts";
import { Restaurant, toRestaurant } from "./restaurant.ts";
import { isFetched, queueAndWait, refusedBeforePayment, targetsWithState } from "./targets-state.ts";

const CORRIDOR_MAX_LISTED = 500;

const FoodCorridorQuery = z.object({
  id: slugParam(
    "a corridor id from /v1/food/status",
    "a corridor id from /v1/food/status (alias corridor)",
  ).describe("Corridor id from /v1/food/status (alias: corridor)"),
});

export const FoodCorridorAnswer = z.object({
  corridorId: z.string(),
  name: z.string(),
  country: z.string(),
  region: z.string(),
  description: z.string().nullable(),
  resorts: z.array(z.string()).describe("Resort ids the corridor leads to"),
  path: z.array(z.object({ lat: z.number(), lon: z.number() })).describe("The route, in travel order"),
  lengthKm: z.number(),
  bufferKm: z.number().describe("Places within this distance of the route are listed"),
  total: z.number().int(),
  count: z.number().int(),
  restaurants: z
    .array(Restaurant.extend({ routeKm: z.number().describe("How far along the route the place lies") }))
    .describe("In route order; distanceKm is the distance from the route"),
  fetchedAt: z.iso.datetime().nullable().describe("When the newest of these OSM places was fetched"),
  updatedAt: z.iso.datetime().describe("Last import of the corridor"),
  notice: z.string(),
});

async function resolve(id: string, ctx: HandlerContext) {
  await ensureSampleData(ctx);
  const row = await mountainDb(ctx.store)
    .selectFrom("mountain_corridors")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) return notFound(`No corridor "${id}" is on file; /v1/food/status lists the corridors.`);
  const path = corridorView(row).path;
  const covering = (await targetsWithState(ctx)).filter((t) => path.some(([lat, lon]) => t.covers(lat, lon)));
  if (covering.length > 0 && !covering.some(isFetched))
    return queueAndWait(ctx, covering, { subject: `The places along corridor ${id}`, plural: true });
  return row;
}

export const foodCorridor = product({
  sku: "food.corridor",
  method: "GET",
  path: "/v1/food/corridor",
  summary: "Restaurants along a travel corridor to a ski resort, in route order",
  description:
    "The OpenStreetMap restaurants, cafes, bars, pubs and fast food within the corridor's buffer of a curated route " +
    "(for example the valley road up to a resort), ordered by how far along the route they lie. Pass id (or its " +
    "earlier name, corridor).",
  status: "live",
  tags: ["food", "mountain"],
  price: "0.01",
  query: FoodCorridorQuery,
  aliases: { corridor: "id" },
  answer: FoodCorridorAnswer,
  sample: { id: "sample-alpenrose-valley-road" },
  source: OSM_SOURCE,

  async check({ query }, ctx) {
    const row = await resolve(query.id, ctx);
    return refusedBeforePayment(row);
  },

  async handle({ query }, ctx) {
    const row = await resolve(query.id, ctx);
    if (isError(row)) return row;
    const corridor = corridorView(row);
    const path = corridor.path.map(([lat, lon]) => ({ lat, lon }));
    const catalog = await placeCatalog(ctx);
    const hits = placesAlongRoute(catalog.index, path, corridor.bufferKm);
    const listed = await withDetails(ctx, catalog, hits.slice(0, CORRIDOR_MAX_LISTED));
    const sample = Number(row.sample) === 1 || hits.some((h) => h.item.recordedSample);
    return ok({
      corridorId: corridor.id,
      name: corridor.name,
      country: corridor.country,
      region: corridor.region,
      description: corridor.description,
      resorts: corridor.resorts,
      path,
      lengthKm: roundKm(routeLengthKm(path)),
      bufferKm: corridor.bufferKm,
      total: hits.length,
      count: listed.length,
      restaurants: listed.map((h) => ({
        ...toRestaurant(h.item, h.distanceKm),
        routeKm: roundKm(h.routeKm),
      })),
      fetchedAt: newest(hits.map((h) => h.item.fetchedAt)),
      updatedAt: row.updated_at,
      notice: foodNotice(sample, false),
    });
  },
});
