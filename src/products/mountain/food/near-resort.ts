// GET /v1/food/near-resort: the restaurants in one tier around a resort's arrival point (near 0–1 km, around
// 1–15 km), nearest first, with the full menu of each that has one, and counts for the other tier.
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { findResort, isError } from "../data/resorts.ts";
import { newest, ResortBody, resortView } from "../data/views.ts";
import { placeCatalog, withDetails } from "../osm/place-catalog.ts";
import { RING_KM } from "../osm/targets.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";
import { countryParam, placeTypeParam, resortParam, usStateParam } from "../shared/params.ts";
import { menusFor } from "./menus.ts";
import { Restaurant, toRestaurant } from "./restaurant.ts";
import { isFetched, queueAndWait, refusedBeforePayment, targetsWithState } from "./targets-state.ts";

const NEAR_RESORT_PRICE = "0.02";
/** Restaurants listed per answer; `total` counts them all. */
const NEAR_RESORT_MAX_LISTED = 500;

export const TIERS = {
  near: { from: 0, to: 1 },
  around: { from: 1, to: RING_KM },
} as const;
type Tier = keyof typeof TIERS;

const FoodNearResortQuery = z.object({
  country: countryParam,
  resort: resortParam,
  tier: z
    .enum(["near", "around"], { error: "must be near (0 to 1 km) or around (1 to 15 km)" })
    .default("near")
    .describe("near: 0 to 1 km from the arrival point (default); around: 1 to 15 km"),
  state: usStateParam.optional(),
  type: placeTypeParam.optional(),
});

type NearResortQuery = z.output<typeof FoodNearResortQuery>;

const RingKm = z.object({ from: z.number().int(), to: z.number().int() });

export const FoodNearResortAnswer = z.object({
  resort: ResortBody,
  tier: z.enum(["near", "around"]),
  ringKm: RingKm,
  measuredFrom: z
    .object({ name: z.string(), kind: z.string(), lat: z.number(), lon: z.number() })
    .describe("The resort's arrival point (ticket office or main lift) distances are measured from"),
  total: z.number().int().describe("Places in the tier"),
  withMenu: z.number().int().describe("Places in the tier with a menu on file"),
  count: z.number().int().describe("Places listed"),
  restaurants: z.array(Restaurant).describe("Nearest first"),
  menus: z.array(
    z.object({
      restaurantId: z.string(),
      name: z.string(),
      currency: z.string(),
      menuDate: z.iso.date(),
      collectedAt: z.iso.date(),
      source: z.object({ kind: z.string(), app: z.string().nullable(), url: z.url(), menuType: z.string() }),
      items: z.array(z.object({ name: z.string(), price: z.number(), category: z.string().optional() })),
    }),
  ),
  otherTier: z.object({
    tier: z.enum(["near", "around"]),
    ringKm: RingKm,
    restaurants: z.number().int(),
    withMenu: z.number().int(),
    priceUsd: z.string(),
    url: z.string(),
  }),
  fetchedAt: z.iso.datetime().describe("When the OSM places around the resort were fetched"),
  updatedAt: z.iso.datetime().describe("Last import of the resort or of these menus"),
  notice: z.string(),
});

async function resolve(query: NearResortQuery, ctx: HandlerContext) {
  const resort = await findResort(ctx, query);
  if (isError(resort)) return resort;
  const ring = (await targetsWithState(ctx)).find((t) => t.id === `ring:${resort.id}`)!;
  if (!isFetched(ring))
    return queueAndWait(ctx, [ring], { subject: `Places around resort ${resort.id}`, plural: true });
  return { resort, fetchedAt: ring.state!.fetched_at! };
}

function tierQuery(tier: Tier) {
  const ring = TIERS[tier];
  return tier === "near" ? { radiusKm: ring.to } : { radiusKm: ring.to, beyondKm: ring.from };
}

export const foodNearResort = product({
  sku: "food.near-resort",
  method: "GET",
  path: "/v1/food/near-resort",
  summary: "Restaurants around a ski resort's arrival point, with their full menus",
  description:
    "The restaurants, cafes, bars, pubs and fast food in one tier around a resort's arrival point (ticket office or " +
    "main lift): near = 0 to 1 km (default), around = 1 to 15 km, nearest first by great-circle distance. The answer " +
    "holds the full menu of every restaurant in the tier that has one, and the counts, price and URL of the other tier.",
  status: "live",
  tags: ["food", "ski", "mountain"],
  price: NEAR_RESORT_PRICE,
  query: FoodNearResortQuery,
  answer: FoodNearResortAnswer,
  sample: { country: "ch", resort: "sample-alpenrose" },
  source: OSM_SOURCE,

  async check({ query }, ctx) {
    const resolved = await resolve(query, ctx);
    return refusedBeforePayment(resolved);
  },

  async handle({ query }, ctx) {
    const resolved = await resolve(query, ctx);
    if (isError(resolved)) return resolved;
    const { resort, fetchedAt } = resolved;
    const catalog = await placeCatalog(ctx);
    const filter = query.type ? { filter: (p: { type: string }) => p.type === query.type } : {};
    const lat = Number(resort.lat);
    const lon = Number(resort.lon);
    const inTier = catalog.index.near(lat, lon, tierQuery(query.tier).radiusKm, {
      ...tierQuery(query.tier),
      ...filter,
    });
    const otherTier: Tier = query.tier === "near" ? "around" : "near";
    const other = catalog.index.near(lat, lon, tierQuery(otherTier).radiusKm, {
      ...tierQuery(otherTier),
      ...filter,
    });

    const withMenuIds = inTier.hits.filter((h) => h.item.menuItemCount > 0).map((h) => h.item.id);
    const menus = await menusFor(ctx, withMenuIds);
    const listed = await withDetails(ctx, catalog, inTier.hits.slice(0, NEAR_RESORT_MAX_LISTED));
    const sample = Number(resort.sample) === 1 || inTier.hits.some((h) => h.item.recordedSample);

    const params = new URLSearchParams({ country: resort.country, resort: resort.id, tier: otherTier });
    if (query.state) params.set("state", query.state);
    if (query.type) params.set("type", query.type);

    return ok({
      resort: resortView(resort),
      tier: query.tier,
      ringKm: TIERS[query.tier],
      measuredFrom: { name: resort.location_name, kind: resort.location, lat, lon },
      total: inTier.total,
      withMenu: withMenuIds.length,
      count: listed.length,
      restaurants: listed.map((h) => toRestaurant(h.item, h.distanceKm)),
      menus: inTier.hits.flatMap((h) => {
        const entry = menus.get(h.item.id);
        if (!entry) return [];
        return [
          {
            restaurantId: h.item.id,
            name: h.item.name,
            currency: entry.menu.currency,
            menuDate: entry.menu.menu_date,
            collectedAt: entry.menu.collected_at,
            source: {
              kind: entry.menu.source_kind,
              app: entry.menu.source_app,
              url: entry.menu.source_url,
              menuType: entry.menu.menu_type,
            },
            items: entry.items.map((i) => ({
              name: i.name,
              price: Number(i.price),
              ...(i.category ? { category: i.category } : {}),
            })),
          },
        ];
      }),
      otherTier: {
        tier: otherTier,
        ringKm: TIERS[otherTier],
        restaurants: other.total,
        withMenu: other.hits.filter((h) => h.item.menuItemCount > 0).length,
        priceUsd: NEAR_RESORT_PRICE,
        url: `${ctx.config.publicUrl}/v1/food/near-resort?${params}`,
      },
      fetchedAt,
      updatedAt: newest([
        resort.updated_at,
        ...[...menus.values()].flatMap((m) => [m.menu.updated_at, ...m.items.map((i) => i.updated_at)]),
      ])!,
      notice: foodNotice(sample || [...menus.values()].some((m) => Number(m.menu.sample) === 1)),
    });
  },
});
