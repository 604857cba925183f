// GET /v1/ski/resort: one resort's details, what prices are on file for it, and where to go next.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { distinct, findResort, isError, pricesOf } from "../data/resorts.ts";
import { DateRange, newest, ResortBody, resortView } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam, resortParam, usStateParam } from "../shared/params.ts";

const SkiResortQuery = z.object({
  country: countryParam,
  resort: resortParam,
  state: usStateParam.optional(),
});

export const SkiResortAnswer = z.object({
  resort: ResortBody.extend({ area: z.string().nullable().describe("Area slug the resort belongs to") }),
  prices: z.object({
    count: z.number().int(),
    seasons: z.array(z.string()),
    seasonBands: z.array(
      z.object({ season: z.string(), seasonBand: z.string(), bandDates: z.array(DateRange) }),
    ),
    ticketTypes: z.array(z.string()),
    ageBands: z.array(z.string()),
    latestCollectedAt: z.iso.date().nullable(),
  }),
  links: z.object({
    prices: z.string().describe("Paid: every price of this resort"),
    quote: z.string().describe("Paid: one price (fill in ticketType, ageBand and a date)"),
    foodNear: z.string().describe("Paid: restaurants within 1 km of the arrival point, with menus"),
    tripMap: z.string().describe("Free: the trip steps for this resort"),
  }),
  updatedAt: z.iso.datetime(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiResort = product({
  sku: "ski.resort",
  method: "GET",
  path: "/v1/ski/resort",
  summary: "One ski resort: operator, official links, arrival point and the prices on file",
  description:
    "One resort's details (operator, official site, booking and price-list URLs, currency, arrival point) with a " +
    "summary of its lift-ticket prices on file (seasons, season bands with dates, ticket types, age bands) and links " +
    "to the price, quote, food and trip endpoints. state (two-letter code) may narrow US resorts.",
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.01",
  query: SkiResortQuery,
  answer: SkiResortAnswer,
  sample: { country: "us", resort: "sample-silver-peak" },

  async check({ query }, ctx) {
    const resort = await findResort(ctx, query);
    return isError(resort) ? resort : undefined;
  },

  async handle({ query }, ctx) {
    const resort = await findResort(ctx, query);
    if (isError(resort)) return resort;
    const { prices, updatedAt, sample } = await pricesOf(ctx, resort.id);
    const bands = new Map<
      string,
      { season: string; seasonBand: string; bandDates: Array<{ from: string; to: string }> }
    >();
    for (const p of prices)
      bands.set(`${p.season}|${p.seasonBand}`, {
        season: p.season,
        seasonBand: p.seasonBand,
        bandDates: p.bandDates,
      });
    const base = ctx.config.publicUrl;
    const id = `country=${resort.country}&resort=${resort.id}`;
    return ok({
      resort: { ...resortView(resort), area: resort.area },
      prices: {
        count: prices.length,
        seasons: distinct(prices.map((p) => p.season)),
        seasonBands: [...bands.values()],
        ticketTypes: distinct(prices.map((p) => p.ticketType)).sort(),
        ageBands: distinct(prices.map((p) => p.ageBand)).sort(),
        latestCollectedAt: newest(prices.map((p) => p.collectedAt)),
      },
      links: {
        prices: `${base}/v1/ski/prices?${id}`,
        quote: `${base}/v1/ski/quote?${id}&ticketType=<ticketType>&ageBand=<ageBand>&date=<YYYY-MM-DD>`,
        foodNear: `${base}/v1/food/near-resort?${id}&tier=near`,
        tripMap: `${base}/v1/trip/map?${id}`,
      },
      updatedAt: newest([resort.updated_at, updatedAt])!,
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample || Number(resort.sample) === 1),
    });
  },
});
