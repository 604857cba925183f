// GET /v1/food/near: restaurants, cafes and bars within a radius of a point, nearest first.
import { z } from "zod";
import { type HandlerContext, notFound, ok, product } from "../../../catalog/product.ts";
import { isError } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { newest } from "../data/views.ts";
import { placeCatalog, withDetails } from "../osm/place-catalog.ts";
import { queueTargets } from "../osm/warmer.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";
import { numberParam, placeTypeParam } from "../shared/params.ts";
import { Restaurant, toRestaurant } from "./restaurant.ts";
import { isFetched, queueAndWait, refusedBeforePayment, targetsWithState } from "./targets-state.ts";

const NEAR_DEFAULT_RADIUS_KM = 2;
const NEAR_MAX_RADIUS_KM = 10;
const NEAR_DEFAULT_LIMIT = 50;
const NEAR_MAX_LIMIT = 500;

export const FoodNearQuery = z.object({
  lat: numberParam("Latitude in degrees", { min: -90, max: 90 }),
  lon: numberParam("Longitude in degrees", { min: -180, max: 180 }),
  radiusKm: numberParam(
    `Search radius in km (default ${NEAR_DEFAULT_RADIUS_KM}, max ${NEAR_MAX_RADIUS_KM})`,
    {
      min: 0,
      max: NEAR_MAX_RADIUS_KM,
      aboveMin: true,
    },
  ).default(NEAR_DEFAULT_RADIUS_KM),
  limit: numberParam(`Most restaurants listed (default ${NEAR_DEFAULT_LIMIT}, max ${NEAR_MAX_LIMIT})`, {
    min: 1,
    max: NEAR_MAX_LIMIT,
    integer: true,
  }).default(NEAR_DEFAULT_LIMIT),
  type: placeTypeParam.optional(),
});

type NearQuery = z.output<typeof FoodNearQuery>;

export const FoodNearAnswer = z.object({
  lat: z.number(),
  lon: z.number(),
  radiusKm: z.number(),
  total: z.number().int().describe("Places within the radius"),
  count: z.number().int().describe("Places listed (at most limit)"),
  restaurants: z.array(Restaurant).describe("Nearest first, with distanceKm"),
  fetchedAt: z.iso.datetime().describe("When the OSM places of the covering areas were last fetched"),
  notice: z.string(),
});

/** The point must lie in a covered area or resort ring, and one of those must have been fetched. */
async function coverage(query: NearQuery, ctx: HandlerContext) {
  await ensureSampleData(ctx);
  const covering = (await targetsWithState(ctx)).filter((t) => t.covers(query.lat, query.lon));
  if (covering.length === 0)
    return notFound(
      `No ski area or resort on file covers ${query.lat},${query.lon}; /v1/food/status lists the areas and resorts covered.`,
    );
  if (!covering.some(isFetched))
    return queueAndWait(ctx, covering, { subject: `Places around ${query.lat},${query.lon}`, plural: true });
  // Answer from what is cached; a covering area not fetched yet is queued for the next buyer.
  const missing = covering.filter((t) => !isFetched(t));
  if (missing.length > 0)
    await queueTargets(
      ctx,
      missing.map((t) => t.id),
    );
  return covering;
}

export const foodNear = product({
  sku: "food.near",
  method: "GET",
  path: "/v1/food/near",
  summary: "Restaurants, cafes and bars near a point in a ski area, nearest first",
  description:
    "OpenStreetMap restaurants, cafes, bars, pubs and fast food within radiusKm (default 2, max 10) of lat/lon, " +
    "nearest first by great-circle distance, with menu item counts. type narrows to one kind; limit caps the list " +
    "(total counts them all). A point outside every covered area is a 404, not charged.",
  status: "live",
  tags: ["food", "mountain"],
  price: "0.01",
  query: FoodNearQuery,
  answer: FoodNearAnswer,
  sample: { lat: "46.024", lon: "7.748" },
  source: OSM_SOURCE,

  async check({ query }, ctx) {
    const covered = await coverage(query, ctx);
    return refusedBeforePayment(covered);
  },

  async handle({ query }, ctx) {
    const covered = await coverage(query, ctx);
    if (isError(covered)) return covered;
    const catalog = await placeCatalog(ctx);
    const { total, hits } = catalog.index.near(query.lat, query.lon, query.radiusKm, {
      limit: query.limit,
      ...(query.type ? { filter: (p) => p.type === query.type } : {}),
    });
    const sample = hits.some((h) => h.item.recordedSample);
    const listed = await withDetails(ctx, catalog, hits);
    return ok({
      lat: query.lat,
      lon: query.lon,
      radiusKm: query.radiusKm,
      total,
      count: listed.length,
      restaurants: listed.map((h) => toRestaurant(h.item, h.distanceKm)),
      fetchedAt: newest(covered.map((t) => t.state?.fetched_at))!,
      notice: foodNotice(sample, false),
    });
  },
});
