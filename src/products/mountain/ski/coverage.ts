// GET /v1/ski/coverage (free): resorts with ticket prices by country; ?country=<cc> lists that country's resort ids.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam } from "../shared/params.ts";

const SkiCoverageQuery = z.object({
  country: countryParam.optional().describe("Lower-case country code: list its resort ids"),
});

export const SkiCoverageAnswer = z.object({
  country: z.string().nullable(),
  countries: z
    .array(z.object({ country: z.string(), resorts: z.number().int(), resortsWithPrices: z.number().int() }))
    .describe("Every country on file (or the one asked for)"),
  resortIds: z.array(z.string()).optional().describe("With ?country=: every resort id of that country"),
  resortIdsWithPrices: z
    .array(z.string())
    .optional()
    .describe("With ?country=: the resort ids that have prices"),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiCoverage = product({
  sku: "ski.coverage",
  method: "GET",
  path: "/v1/ski/coverage",
  summary: "Resorts with ticket prices by country; ?country= lists resort ids (free)",
  description:
    "Free. How many resorts each country has on file and how many of them have lift-ticket prices; with " +
    "?country=<cc>, that country's resort ids.",
  status: "live",
  tags: ["ski", "mountain", "status"],
  price: "0",
  query: SkiCoverageQuery,
  answer: SkiCoverageAnswer,

  async handle({ query }, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    let resortQuery = db.selectFrom("mountain_resorts").select(["id", "country", "sample"]);
    if (query.country) resortQuery = resortQuery.where("country", "=", query.country);
    const resorts = (await resortQuery.execute()).sort((a, b) => a.id.localeCompare(b.id));
    const priced = new Set(
      (await db.selectFrom("mountain_ticket_prices").select("resort_id").distinct().execute()).map(
        (p) => p.resort_id,
      ),
    );
    const countries = [...new Set(resorts.map((r) => r.country))].sort().map((country) => {
      const own = resorts.filter((r) => r.country === country);
      return { country, resorts: own.length, resortsWithPrices: own.filter((r) => priced.has(r.id)).length };
    });
    return ok({
      country: query.country ?? null,
      countries,
      ...(query.country
        ? {
            resortIds: resorts.map((r) => r.id),
            resortIdsWithPrices: resorts.filter((r) => priced.has(r.id)).map((r) => r.id),
          }
        : {}),
      generatedAt: new Date().toISOString(),
      notice: skiNotice(resorts.some((r) => Number(r.sample) === 1)),
    });
  },
});
