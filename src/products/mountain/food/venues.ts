// GET /v1/food/venues: every restaurant, cafe and bar OpenStreetMap has in one ski area's bounding box.
import { z } from "zod";
import { type HandlerContext, notFound, ok, product } from "../../../catalog/product.ts";
import { isError } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { placeCatalog, placeDetails } from "../osm/place-catalog.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";
import { countryParam, slugParam } from "../shared/params.ts";
import { Restaurant, toRestaurant } from "./restaurant.ts";
import { isFetched, queueAndWait, refusedBeforePayment, targetsWithState } from "./targets-state.ts";

const FoodVenuesQuery = z.object({
  country: countryParam,
  area: slugParam("an area slug from /v1/food/status", "an area slug from /v1/food/status").describe(
    "Area slug from /v1/food/status",
  ),
});

type VenuesQuery = z.output<typeof FoodVenuesQuery>;

export const FoodVenuesAnswer = z.object({
  area: z.string(),
  name: z.string(),
  country: z.string(),
  region: z.string(),
  bbox: z.object({ south: z.number(), west: z.number(), north: z.number(), east: z.number() }),
  count: z.number().int(),
  restaurants: z.array(Restaurant).describe("Sorted by name"),
  updatedAt: z.iso.datetime().describe("When the area's OSM places were fetched"),
  fetchedAt: z.iso.datetime(),
  notice: z.string(),
});

async function resolve(query: VenuesQuery, ctx: HandlerContext) {
  await ensureSampleData(ctx);
  const area = await mountainDb(ctx.store)
    .selectFrom("mountain_areas")
    .selectAll()
    .where("id", "=", query.area)
    .executeTakeFirst();
  if (!area || area.country !== query.country)
    return notFound(
      area
        ? `Area "${query.area}" is in country ${area.country}, not ${query.country}; /v1/food/status lists the areas.`
        : `No area "${query.area}" is on file; /v1/food/status lists the areas.`,
    );
  const target = (await targetsWithState(ctx)).find((t) => t.id === `area:${area.id}`)!;
  if (!isFetched(target))
    return queueAndWait(ctx, [target], { subject: `The places of area ${area.id}`, plural: true });
  return { area, fetchedAt: target.state!.fetched_at! };
}

export const foodVenues = product({
  sku: "food.venues",
  method: "GET",
  path: "/v1/food/venues",
  summary: "Every restaurant, cafe and bar in one ski area",
  description:
    "All OpenStreetMap restaurants, cafes, bars, pubs and fast food inside one ski area's bounding box, with menu " +
    "item counts, sorted by name. country and area (the slug from /v1/food/status) are required.",
  status: "live",
  tags: ["food", "mountain"],
  price: "0.02",
  query: FoodVenuesQuery,
  answer: FoodVenuesAnswer,
  sample: { country: "ch", area: "sample-alpenrose-valley" },
  source: OSM_SOURCE,

  async check({ query }, ctx) {
    const resolved = await resolve(query, ctx);
    return refusedBeforePayment(resolved);
  },

  async handle({ query }, ctx) {
    const resolved = await resolve(query, ctx);
    if (isError(resolved)) return resolved;
    const { area, fetchedAt } = resolved;
    const ids = await mountainDb(ctx.store)
      .selectFrom("mountain_osm_places")
      .select("id")
      .where("target", "=", `area:${area.id}`)
      .execute();
    const catalog = await placeCatalog(ctx);
    const details = await placeDetails(
      ctx,
      catalog,
      ids.map((row) => row.id),
    );
    const places = [...details.values()]
      .map((place) => ({ ...place, area: area.id }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const sample = Number(area.sample) === 1 || places.some((p) => p.recordedSample);
    return ok({
      area: area.id,
      name: area.name,
      country: area.country,
      region: area.region,
      bbox: {
        south: Number(area.south),
        west: Number(area.west),
        north: Number(area.north),
        east: Number(area.east),
      },
      count: places.length,
      restaurants: places.map((p) => toRestaurant(p)),
      updatedAt: fetchedAt,
      fetchedAt,
      notice: foodNotice(sample, false),
    });
  },
});
