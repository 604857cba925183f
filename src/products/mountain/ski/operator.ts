// GET /v1/ski/operator: the resorts a lift company operates, found by (part of) its name.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { newest } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { InventoryResort, withPriceCoverage } from "./price-coverage.ts";

const SkiOperatorQuery = z.object({
  name: z
    .string({ error: "is required: an operator name or part of it, e.g. Bergbahnen" })
    .trim()
    .min(2, { error: "must be at least 2 characters" })
    .max(200, { error: "must be at most 200 characters" })
    .describe("Operator name or part of it (case and accents ignored)"),
});

export const SkiOperatorAnswer = z.object({
  query: z.string(),
  match: z.boolean(),
  message: z.string().optional(),
  operators: z.array(z.string()).describe("Operator names that matched"),
  count: z.number().int(),
  countries: z.array(z.string()),
  resorts: z.array(InventoryResort),
  updatedAt: z.iso.datetime().nullable(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export function foldName(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
}

export const skiOperator = product({
  sku: "ski.operator",
  method: "GET",
  path: "/v1/ski/operator",
  summary: "Resorts of one lift operator, found by name",
  description:
    "Every resort on file whose operator name contains the given name (case and accents ignored), across countries, " +
    "with official links, arrival points and price coverage. No match is a 200 with match:false.",
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.05",
  query: SkiOperatorQuery,
  answer: SkiOperatorAnswer,
  sample: { name: "Sample Bergbahnen" },

  async handle({ query }, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    const wanted = foldName(query.name);
    const rows = (await db.selectFrom("mountain_resorts").selectAll().execute())
      .filter((r) => foldName(r.operator).includes(wanted))
      .sort(
        (a, b) =>
          a.operator.localeCompare(b.operator) ||
          a.country.localeCompare(b.country) ||
          a.id.localeCompare(b.id),
      );
    const { resorts, pricesFromSample } = await withPriceCoverage(db, rows);
    const sample = rows.some((r) => Number(r.sample) === 1) || pricesFromSample;
    return ok({
      query: query.name,
      match: resorts.length > 0,
      ...(resorts.length === 0
        ? { message: `No resort on file is operated by a company named like "${query.name}".` }
        : {}),
      operators: [...new Set(rows.map((r) => r.operator))],
      count: resorts.length,
      countries: [...new Set(rows.map((r) => r.country))].sort(),
      resorts,
      updatedAt: newest(resorts.map((r) => r.updatedAt)),
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample),
    });
  },
});
