// GET /v1/ski/inventory: the resorts on file, all or one country's, with their price coverage.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { newest } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam } from "../shared/params.ts";
import { InventoryResort, withPriceCoverage } from "./price-coverage.ts";

const SkiInventoryQuery = z.object({
  country: countryParam.optional().describe("Lower-case country code; omit for every country"),
});

export const SkiInventoryAnswer = z.object({
  country: z.string().nullable(),
  match: z.boolean(),
  count: z.number().int(),
  resorts: z.array(InventoryResort),
  updatedAt: z.iso.datetime().nullable().describe("Last import of these resorts or their prices"),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiInventory = product({
  sku: "ski.inventory",
  method: "GET",
  path: "/v1/ski/inventory",
  summary: "Ski resorts on file, with operator, official links, arrival point and price coverage",
  description:
    "Every ski resort on file (or one country's): resortId, name, region, state (US), operator, official site, " +
    "booking and price-list URLs, currency, the arrival point (ticket office or main lift) and how many lift-ticket " +
    "prices are on file for which seasons. Resort ids feed /v1/ski/prices, /v1/ski/quote and /v1/food/near-resort.",
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.01",
  query: SkiInventoryQuery,
  answer: SkiInventoryAnswer,
  sample: { country: "ch" },

  async handle({ query }, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    let resortsQuery = db.selectFrom("mountain_resorts").selectAll();
    if (query.country) resortsQuery = resortsQuery.where("country", "=", query.country);
    const rows = (await resortsQuery.execute()).sort(
      (a, b) => a.country.localeCompare(b.country) || a.id.localeCompare(b.id),
    );
    const { resorts, pricesFromSample } = await withPriceCoverage(db, rows);
    const sample = rows.some((r) => Number(r.sample) === 1) || pricesFromSample;
    return ok({
      country: query.country ?? null,
      match: resorts.length > 0,
      count: resorts.length,
      resorts,
      updatedAt: newest(resorts.map((r) => r.updatedAt)),
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample),
    });
  },
});
