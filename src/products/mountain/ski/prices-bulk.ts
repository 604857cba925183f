// GET /v1/ski/prices-bulk: every lift-ticket price of a country (a US state), at most 5000 rows.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { comparePrices, newest, PriceBody, priceView } from "../data/views.ts";
import { skiNotice } from "../shared/notice.ts";
import { countryParam, tokenParam, usStateParam } from "../shared/params.ts";
import { foldName } from "./operator.ts";

export const BULK_MAX_ROWS = 5000;

const SkiPricesBulkQuery = z
  .object({
    country: countryParam,
    state: usStateParam.optional().describe("Two-letter US state code: required for the US, US only"),
    region: z
      .string()
      .trim()
      .min(1, { error: "must not be empty" })
      .max(100, { error: "must be at most 100 characters" })
      .optional()
      .describe("Region name as /v1/ski/inventory gives it (case and accents ignored)"),
    ticketType: tokenParam("a ticket type such as 1-day").optional().describe("Only this ticket type"),
    ageBand: tokenParam("an age band such as adult").optional().describe("Only this age band"),
  })
  .superRefine((q, ctx) => {
    if (q.country === "us" && q.state === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["state"],
        message: "is required for the US: a two-letter state code such as CO",
      });
    if (q.country !== "us" && q.state !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["state"],
        message: `applies to the US only; leave it out for country ${q.country}`,
      });
  });

const BulkRow = PriceBody.extend({
  resortId: z.string(),
  resortName: z.string(),
  region: z.string(),
  state: z.string().nullable(),
});

export const SkiPricesBulkAnswer = z.object({
  country: z.string(),
  state: z.string().nullable(),
  region: z.string().nullable(),
  ticketType: z.string().nullable(),
  ageBand: z.string().nullable(),
  resorts: z.number().int().describe("Resorts with rows in this answer"),
  totalCount: z.number().int().describe("Rows matching the filters"),
  count: z.number().int().describe("Rows in this answer (at most 5000)"),
  truncated: z.boolean().describe("True when more rows matched than the 5000 returned; narrow with filters"),
  maxRows: z.literal(BULK_MAX_ROWS),
  rows: z.array(BulkRow),
  updatedAt: z.iso.datetime().nullable(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

export const skiPricesBulk = product({
  sku: "ski.prices-bulk",
  method: "GET",
  path: "/v1/ski/prices-bulk",
  summary: "Every lift-ticket price of a country (or US state), at most 5000 rows",
  description:
    "All lift-ticket prices on file for a country, one row per resort, season, season band, ticket type and age band, " +
    "sorted by resort. state is required for the US; region, ticketType and ageBand narrow the rows. At most 5000 rows " +
    "per answer: totalCount and truncated say when more matched.",
  status: "live",
  tags: ["ski", "mountain"],
  price: "0.25",
  query: SkiPricesBulkQuery,
  answer: SkiPricesBulkAnswer,
  example: { country: "at" },
  valueSets: {
    region: {
      async values(ctx) {
        await ensureSampleData(ctx);
        const rows = await mountainDb(ctx.store)
          .selectFrom("mountain_resorts")
          .select("region")
          .distinct()
          .execute();
        return rows.map((r) => r.region);
      },
      fold: foldName,
      hint: "regions as /v1/ski/inventory gives them",
    },
  },

  async handle({ query }, ctx) {
    await ensureSampleData(ctx);
    const db = mountainDb(ctx.store);
    let resortQuery = db.selectFrom("mountain_resorts").selectAll().where("country", "=", query.country);
    if (query.state) resortQuery = resortQuery.where("state", "=", query.state);
    const region = query.region ? foldName(query.region) : undefined;
    const resorts = (await resortQuery.execute())
      .filter((r) => region === undefined || foldName(r.region) === region)
      .sort((a, b) => a.id.localeCompare(b.id));
    const byId = new Map(resorts.map((r) => [r.id, r]));
    const ids = resorts.map((r) => r.id);
    const rows: Array<z.infer<typeof BulkRow>> = [];
    let updatedAt = newest(resorts.map((r) => r.updated_at));
    let sample = resorts.some((r) => Number(r.sample) === 1);
    for (let i = 0; i < ids.length; i += 500) {
      let priceQuery = db
        .selectFrom("mountain_ticket_prices")
        .selectAll()
        .where("resort_id", "in", ids.slice(i, i + 500));
      if (query.ticketType) priceQuery = priceQuery.where("ticket_type", "=", query.ticketType);
      if (query.ageBand) priceQuery = priceQuery.where("age_band", "=", query.ageBand);
      for (const row of await priceQuery.execute()) {
        const resort = byId.get(row.resort_id)!;
        updatedAt = newest([updatedAt, row.updated_at]);
        sample ||= Number(row.sample) === 1;
        rows.push({
          resortId: resort.id,
          resortName: resort.name,
          region: resort.region,
          state: resort.state,
          ...priceView(row),
        });
      }
    }
    rows.sort((a, b) => a.resortId.localeCompare(b.resortId) || comparePrices(a, b));
    const page = rows.slice(0, BULK_MAX_ROWS);
    return ok({
      country: query.country,
      state: query.state ?? null,
      region: query.region ?? null,
      ticketType: query.ticketType ?? null,
      ageBand: query.ageBand ?? null,
      resorts: new Set(page.map((r) => r.resortId)).size,
      totalCount: rows.length,
      count: page.length,
      truncated: rows.length > page.length,
      maxRows: BULK_MAX_ROWS,
      rows: page,
      updatedAt,
      generatedAt: new Date().toISOString(),
      notice: skiNotice(sample),
    });
  },
});
