// GET /v1/trip/map (free): the steps of a ski trip to one resort — each a paid endpoint with how much data it
// has, when that data was last updated, its price and URL — with a tripId and the bundle price of all steps.
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { sha256 } from "../../../sha256.ts";
import { atomicToUsd, usdToAtomic } from "../../../x402/shared/money.ts";
import { findResort, isError, pricesOf, todayUtc } from "../data/resorts.ts";
import { mountainDb, type ResortTable } from "../data/schema.ts";
import { corridorView } from "../data/views.ts";
import { foodCorridor } from "../food/corridor.ts";
import { placesAlongRoute } from "../food/corridor-route.ts";
import { foodNearResort, TIERS } from "../food/near-resort.ts";
import { isFetched, targetsWithState } from "../food/targets-state.ts";
import { insiderInfo } from "../insider/info.ts";
import { isCurrent } from "../insider/tips.ts";
import { placeCatalog } from "../osm/place-catalog.ts";
import { queueTargets } from "../osm/warmer.ts";
import { tripNotice } from "../shared/notice.ts";
import { countryParam, resortParam } from "../shared/params.ts";
import { skiPrices } from "../ski/prices.ts";
import { skiQuote } from "../ski/quote.ts";
import { skiResort } from "../ski/resort.ts";

/** Insider tips listed as steps, newest first. */
const TRIP_MAX_TIPS = 10;

const TripMapQuery = z.object({ country: countryParam, resort: resortParam });

const Step = z.object({
  step: z.string().describe("resort, prices, quote, food-near, food-around, corridor, insider-tip"),
  title: z.string(),
  sku: z.string(),
  count: z.number().int().describe("How many items the step's answer holds"),
  lastUpdate: z.iso.datetime().nullable().describe("When the step's data was last imported or fetched"),
  priceUsd: z.string(),
  url: z.string(),
});

export const TripMapAnswer = z.object({
  tripId: z.string().describe("Identifies this set of steps and their data versions"),
  country: z.string(),
  resort: z.object({
    resortId: z.string(),
    name: z.string(),
    region: z.string(),
    state: z.string().nullable(),
  }),
  steps: z.array(Step),
  stepCount: z.number().int(),
  bundlePriceUsd: z.string().describe("The sum of every step's price"),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

type StepBody = z.infer<typeof Step>;

function priceOf(p: { price: unknown }): string {
  return typeof p.price === "string" ? p.price : "0";
}

/** Where a step's URL starts and which resort it is for. */
interface StepTarget {
  base: string;
  id: URLSearchParams;
}

/** The resort's details, its lift-ticket prices and (when it has prices) a quote. */
async function skiSteps(ctx: HandlerContext, resort: ResortTable, { base, id }: StepTarget) {
  const list: StepBody[] = [];
  const { prices, updatedAt: pricesUpdated, sample } = await pricesOf(ctx, resort.id);
  list.push({
    step: "resort",
    title: `${resort.name}: details and official links`,
    sku: skiResort.sku,
    count: 1,
    lastUpdate: resort.updated_at,
    priceUsd: priceOf(skiResort),
    url: `${base}${skiResort.path}?${id}`,
  });
  list.push({
    step: "prices",
    title: "Every lift-ticket price",
    sku: skiPrices.sku,
    count: prices.length,
    lastUpdate: pricesUpdated,
    priceUsd: priceOf(skiPrices),
    url: `${base}${skiPrices.path}?${id}`,
  });
  const first = prices.find((p) => p.bandDates.some((r) => r.to >= todayUtc())) ?? prices[0];
  if (first) {
    const quote = new URLSearchParams(id);
    quote.set("ticketType", first.ticketType);
    quote.set("ageBand", first.ageBand);
    const combos = new Set(prices.map((p) => `${p.ticketType}|${p.ageBand}`)).size;
    list.push({
      step: "quote",
      title: "One ticket's price for your ski day",
      sku: skiQuote.sku,
      count: combos,
      lastUpdate: pricesUpdated,
      priceUsd: priceOf(skiQuote),
      url: `${base}${skiQuote.path}?${quote}`,
    });
  }
  return { list, sample };
}

/** Restaurants near and around the resort; queues the resort's ring for fetching when it is not yet. */
async function foodSteps(ctx: HandlerContext, resort: ResortTable, { base, id }: StepTarget) {
  const list: StepBody[] = [];
  const ring = (await targetsWithState(ctx)).find((t) => t.id === `ring:${resort.id}`);
  if (ring && !isFetched(ring)) await queueTargets(ctx, [ring.id]);
  const catalog = await placeCatalog(ctx);
  const lat = Number(resort.lat);
  const lon = Number(resort.lon);
  const near = catalog.index.near(lat, lon, TIERS.near.to);
  const around = catalog.index.near(lat, lon, TIERS.around.to, { beyondKm: TIERS.around.from });
  for (const [tier, found] of [
    ["near", near],
    ["around", around],
  ] as const) {
    const params = new URLSearchParams(id);
    params.set("tier", tier);
    const ring_ = TIERS[tier];
    list.push({
      step: `food-${tier}`,
      title: `Restaurants ${ring_.from}–${ring_.to} km from ${resort.location_name}, with menus`,
      sku: foodNearResort.sku,
      count: found.total,
      lastUpdate: ring?.state?.fetched_at ?? null,
      priceUsd: priceOf(foodNearResort),
      url: `${base}${foodNearResort.path}?${params}`,
    });
  }
  return { list, catalog, sample: near.hits.some((h) => h.item.recordedSample) };
}

/** The food corridors that pass the resort, in id order. */
async function corridorSteps(
  ctx: HandlerContext,
  resort: ResortTable,
  base: string,
  catalog: Awaited<ReturnType<typeof placeCatalog>>,
): Promise<StepBody[]> {
  const corridors = (await mountainDb(ctx.store).selectFrom("mountain_corridors").selectAll().execute())
    .map((row) => ({ row, view: corridorView(row) }))
    .filter(({ view }) => view.resorts.includes(resort.id))
    .sort((a, b) => a.view.id.localeCompare(b.view.id));
  return corridors.map(({ row, view }) => ({
    step: "corridor",
    title: `Restaurants along ${view.name}`,
    sku: foodCorridor.sku,
    count: placesAlongRoute(
      catalog.index,
      view.path.map(([la, lo]) => ({ lat: la, lon: lo })),
      view.bufferKm,
    ).length,
    lastUpdate: row.updated_at,
    priceUsd: priceOf(foodCorridor),
    url: `${base}${foodCorridor.path}?id=${view.id}`,
  }));
}

/** The current insider tips for the resort or its whole country, newest first. */
async function insiderTipSteps(ctx: HandlerContext, resort: ResortTable, base: string) {
  const today = todayUtc();
  const tips = (
    await mountainDb(ctx.store)
      .selectFrom("mountain_insider_tips")
      .selectAll()
      .where("country", "=", resort.country)
      .execute()
  )
    .filter((t) => (t.resort_id === resort.id || t.resort_id === null) && isCurrent(t, today))
    .sort((a, b) => (a.date === b.date ? a.id.localeCompare(b.id) : a.date < b.date ? 1 : -1))
    .slice(0, TRIP_MAX_TIPS);
  const list: StepBody[] = tips.map((tip) => ({
    step: "insider-tip",
    title: tip.title ?? `Insider tip (${tip.kind}, ${tip.language})`,
    sku: insiderInfo.sku,
    count: 1,
    lastUpdate: tip.updated_at,
    priceUsd: priceOf(insiderInfo),
    url: `${base}${insiderInfo.path}?id=${tip.id}`,
  }));
  return { list, sample: tips.some((t) => Number(t.sample) === 1) };
}

async function steps(ctx: HandlerContext, resort: ResortTable) {
  const target: StepTarget = {
    base: ctx.config.publicUrl,
    id: new URLSearchParams({ country: resort.country, resort: resort.id }),
  };
  const ski = await skiSteps(ctx, resort, target);
  const food = await foodSteps(ctx, resort, target);
  const corridors = await corridorSteps(ctx, resort, target.base, food.catalog);
  const tips = await insiderTipSteps(ctx, resort, target.base);
  const sample = Number(resort.sample) === 1 || ski.sample || tips.sample || food.sample;
  return { list: [...ski.list, ...food.list, ...corridors, ...tips.list], sample };
}

export const tripMap = product({
  sku: "trip.map",
  method: "GET",
  path: "/v1/trip/map",
  summary: "Trip map for one ski resort: the paid steps with counts, last update, price and URL (free)",
  description:
    "Free. The steps of a trip to one resort — resort details, lift-ticket prices, a quote, restaurants near and " +
    "around the arrival point, corridors and current insider tips — each with how many items it holds, when its data " +
    "was last updated, its price and its URL; a tripId for this set of steps and the bundle price of all of them.",
  status: "live",
  tags: ["trip", "ski", "food", "mountain"],
  price: "0",
  query: TripMapQuery,
  answer: TripMapAnswer,
  example: { country: "ch", resort: "sample-alpenrose" },

  async handle({ query }, ctx) {
    const resort = await findResort(ctx, query);
    if (isError(resort)) return resort;
    const { list, sample } = await steps(ctx, resort);
    const bundle = list.reduce((sum, s) => sum + usdToAtomic(s.priceUsd), 0n);
    const identity = JSON.stringify(list.map((s) => [s.step, s.url, s.count, s.lastUpdate]));
    return ok({
      tripId: `trip_${sha256(`${resort.country}/${resort.id}\n${identity}`).slice(0, 20)}`,
      country: resort.country,
      resort: { resortId: resort.id, name: resort.name, region: resort.region, state: resort.state },
      steps: list,
      stepCount: list.length,
      bundlePriceUsd: atomicToUsd(bundle),
      generatedAt: new Date().toISOString(),
      notice: tripNotice(sample),
    });
  },
});
