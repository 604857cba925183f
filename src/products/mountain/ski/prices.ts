// GET /v1/ski/prices: every lift-ticket price on file for one resort.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { findResort, isError, pricesOf } from "../data/resorts.ts";
import { PriceBody, resortView } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam, slugParam } from "../shared/params.ts";

const BULK_HINT = "for every resort's prices in a country, use /v1/ski/prices-bulk?country=<cc>";

const SkiPricesQuery = z.object({
  country: countryParam,
  resort: slugParam(
    "a resortId from /v1/ski/inventory",
    `a resortId from /v1/ski/inventory; ${BULK_HINT}`,
  ).describe(`Resort id from /v1/ski/inventory (required; ${BULK_HINT})`),
});

export const PricedResort = z.object({
  resortId: z.string(),
  name: z.string(),
  country: z.string(),
  region: z.string(),
  state: z.string().nullable(),
  currency: z.string(),
  priceListUrl: z.url(),
  officialBookingUrl: z.url(),
});

export const SkiPricesAnswer = z.object({
  resort: PricedResort,
  count: z.number().int(),
  prices: z.array(PriceBody),
  updatedAt: z.iso.datetime().describe("Last import of this resort or its prices"),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiPrices = product({
  sku: "ski.prices",
  method: "GET",
  path: "/v1/ski/prices",
  summary: "Lift-ticket prices of one resort: every season, season band, ticket type and age band",
  description:
    "All lift-ticket prices on file for one resort, each with its season, season band and the band's date ranges, " +
    "ticket type, age band, price, currency, source URL and collection date. country and resort are both required; " +
    `a country without a resort is a 400 (${BULK_HINT}).`,
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.01",
  query: SkiPricesQuery,
  answer: SkiPricesAnswer,
  sample: { country: "ch", resort: "sample-alpenrose" },

  async check({ query }, ctx) {
    const resort = await findResort(ctx, query);
    return isError(resort) ? resort : undefined;
  },

  async handle({ query }, ctx) {
    const resort = await findResort(ctx, query);
    if (isError(resort)) return resort;
    const { prices, updatedAt, sample } = await pricesOf(ctx, resort.id);
    const view = resortView(resort);
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
      count: prices.length,
      prices,
      updatedAt: updatedAt && updatedAt > resort.updated_at ? updatedAt : resort.updated_at,
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample || Number(resort.sample) === 1),
    });
  },
});
