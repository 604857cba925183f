// GET /v1/ski/quote: the one lift-ticket price for a resort, ticket type, age band and date (or season band).
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { findResort, isError, pricesOf, todayUtc } from "../data/resorts.ts";
import { DateRange, newest, resortView } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam, dateParam, resortParam, tokenParam, usStateParam } from "../shared/params.ts";
import { PricedResort } from "./prices.ts";
import { chooseQuote } from "./quote-rules.ts";

const SkiQuoteQuery = z.object({
  country: countryParam,
  resort: resortParam,
  ticketType: tokenParam("a ticket type such as 1-day (see /v1/ski/resort)").describe(
    "Ticket type, e.g. 1-day",
  ),
  ageBand: tokenParam("an age band such as adult (see /v1/ski/resort)").describe(
    "Age band, e.g. adult, child",
  ),
  date: dateParam.optional().describe("Ski day YYYY-MM-DD; selects the season band (default: today)"),
  seasonBand: tokenParam("a season band such as peak")
    .optional()
    .describe("Season band, e.g. peak; instead of date"),
  state: usStateParam.optional(),
});

type QuoteQuery = z.output<typeof SkiQuoteQuery>;

export const SkiQuoteAnswer = z.object({
  resort: PricedResort,
  ticketType: z.string(),
  ageBand: z.string(),
  ageRange: z.string().nullable(),
  date: z.iso.date().nullable().describe("The day priced; null when chosen by season band"),
  selectedBy: z.enum(["date", "seasonBand", "today"]),
  season: z.string(),
  seasonBand: z.string(),
  bandDates: z.array(DateRange),
  price: z.number(),
  currency: z.string(),
  priceId: z.string(),
  sourceUrl: z.url(),
  collectedAt: z.iso.date(),
  updatedAt: z.iso.datetime(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

async function quote(query: QuoteQuery, ctx: HandlerContext) {
  const resort = await findResort(ctx, query);
  if (isError(resort)) return resort;
  const { prices, updatedAt } = await pricesOf(ctx, resort.id);
  const choice = chooseQuote(prices, query, todayUtc());
  return isError(choice) ? choice : { resort, choice, updatedAt: newest([resort.updated_at, updatedAt])! };
}

export const skiQuote = product({
  sku: "ski.quote",
  method: "GET",
  path: "/v1/ski/quote",
  summary: "One lift-ticket price: resort, ticket type, age band and date (or season band)",
  description:
    "The price of one lift ticket. The date (default today) selects the season band; seasonBand alone takes the " +
    "latest season that has it. An unknown ticketType, ageBand or seasonBand is a 400 listing the allowed values; " +
    "an unknown resort, or a date outside every season band, is a 404 and not charged.",
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.01",
  query: SkiQuoteQuery,
  answer: SkiQuoteAnswer,
  sample: {
    country: "ch",
    resort: "sample-alpenrose",
    ticketType: "1-day",
    ageBand: "adult",
    date: "2026-12-28",
  },

  async check({ query }, ctx) {
    const result = await quote(query, ctx);
    return isError(result) ? result : undefined;
  },

  async handle({ query }, ctx) {
    const result = await quote(query, ctx);
    if (isError(result)) return result;
    const { resort, choice, updatedAt } = result;
    const view = resortView(resort);
    const p = choice.price;
    return ok({
      resort: {
        resortId: view.resortId,
        name: view.name,
        country: view.country,
        region: view.region,
        state: view.state,
        currency: view.currency,
        priceListUrl: view.priceListUrl,
        officialBookingUrl: view.officialBookingUrl,
      },
      ticketType: p.ticketType,
      ageBand: p.ageBand,
      ageRange: p.ageRange,
      date: choice.date,
      selectedBy: choice.selectedBy,
      season: p.season,
      seasonBand: p.seasonBand,
      bandDates: p.bandDates,
      price: p.price,
      currency: p.currency,
      priceId: p.id,
      sourceUrl: p.sourceUrl,
      collectedAt: p.collectedAt,
      updatedAt,
      generatedAt: new Date().toISOString(),
      notice: skiNotice(Number(resort.sample) === 1),
    });
  },
});
