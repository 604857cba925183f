// GET /v1/ski/status (free): the ski data on file per country.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { newest } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";

export const SkiStatusAnswer = z.object({
  ok: z.literal(true),
  countries: z.array(
    z.object({
      country: z.string(),
      resorts: z.number().int(),
      resortsWithPrices: z.number().int(),
      priceRows: z.number().int(),
      seasons: z.array(z.string()),
      currencies: z.array(z.string()),
      latestCollectedAt: z.iso.date().nullable(),
      updatedAt: z.iso.datetime().nullable(),
    }),
  ),
  totals: z.object({
    countries: z.number().int(),
    resorts: z.number().int(),
    resortsWithPrices: z.number().int(),
    priceRows: z.number().int(),
  }),
  sampleData: z.boolean().describe("True when any of it is the built-in sample dataset"),
  updatedAt: z.iso.datetime().nullable(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiStatus = product({
  sku: "ski.status",
  method: "GET",
  path: "/v1/ski/status",
  summary: "Ski data on file per country (free)",
  description:
    "Free. For each country: resorts on file, resorts with lift-ticket prices, price rows, seasons, currencies, the " +
    "latest collection date and the last import.",
  status: "live",
  tags: ["ski", "mountain", "status"],
  price: "0",
  answer: SkiStatusAnswer,

  async handle(_input, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    const [resorts, prices] = await Promise.all([
      db
        .selectFrom("mountain_resorts")
        .select(["id", "country", "currency", "updated_at", "sample"])
        .execute(),
      db
        .selectFrom("mountain_ticket_prices")
        .select(["resort_id", "season", "collected_at", "updated_at", "sample"])
        .execute(),
    ]);
    const countryOf = new Map(resorts.map((r) => [r.id, r.country]));
    const countries = [...new Set(resorts.map((r) => r.country))].sort().map((country) => {
      const own = resorts.filter((r) => r.country === country);
      const ownPrices = prices.filter((p) => countryOf.get(p.resort_id) === country);
      return {
        country,
        resorts: own.length,
        resortsWithPrices: new Set(ownPrices.map((p) => p.resort_id)).size,
        priceRows: ownPrices.length,
        seasons: [...new Set(ownPrices.map((p) => p.season))].sort(),
        currencies: [...new Set(own.map((r) => r.currency))].sort(),
        latestCollectedAt: newest(ownPrices.map((p) => p.collected_at)),
        updatedAt: newest([...own.map((r) => r.updated_at), ...ownPrices.map((p) => p.updated_at)]),
      };
    });
    const sample = resorts.some((r) => Number(r.sample) === 1) || prices.some((p) => Number(p.sample) === 1);
    return ok({
      ok: true as const,
      countries,
      totals: {
        countries: countries.length,
        resorts: resorts.length,
        resortsWithPrices: new Set(prices.map((p) => p.resort_id)).size,
        priceRows: prices.length,
      },
      sampleData: sample,
      updatedAt: newest(countries.map((c) => c.updatedAt)),
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample),
    });
  },
});
