// Looking up curated resorts and their prices, with the 400/404 answers a buyer gets before paying.
import type { HandlerContext } from "../../../catalog/product.ts";
import { badRequest, type ErrorOutcome, notFound } from "../../../catalog/product.ts";
import { ensureSampleData } from "./sample-data.ts";
import { mountainDb, type ResortTable } from "./schema.ts";
import { comparePrices, type PriceView, priceView } from "./views.ts";

interface ResortLookup {
  country: string;
  resort: string;
  state?: string;
}

/** The resort, or the error a buyer gets: 400 for a state outside the US, 404 (not charged) for the rest. */
export async function findResort(
  ctx: HandlerContext,
  lookup: ResortLookup,
): Promise<ResortTable | ErrorOutcome> {
  await ensureSampleData(ctx);
  if (lookup.state !== undefined && lookup.country !== "us")
    return badRequest(
      "state",
      `state: applies to US resorts only; leave it out for country ${lookup.country}`,
    );
  const row = await mountainDb(ctx.store)
    .selectFrom("mountain_resorts")
    .selectAll()
    .where("id", "=", lookup.resort)
    .executeTakeFirst();
  const coverage = `/v1/ski/coverage?country=${lookup.country} lists the resort ids on file`;
  if (!row) return notFound(`No resort "${lookup.resort}" is on file; ${coverage}.`);
  if (row.country !== lookup.country)
    return notFound(
      `Resort "${lookup.resort}" is in country ${row.country}, not ${lookup.country}; ${coverage}.`,
    );
  if (lookup.state !== undefined && row.state !== lookup.state)
    return notFound(`Resort "${lookup.resort}" is in state ${row.state ?? "(none)"}, not ${lookup.state}.`);
  return row;
}

export function isError(value: unknown): value is ErrorOutcome {
  return typeof value === "object" && value !== null && "status" in value && "body" in value;
}

interface ResortPrices {
  prices: PriceView[];
  updatedAt: string | null;
  sample: boolean;
}

export async function pricesOf(ctx: HandlerContext, resortId: string): Promise<ResortPrices> {
  const rows = await mountainDb(ctx.store)
    .selectFrom("mountain_ticket_prices")
    .selectAll()
    .where("resort_id", "=", resortId)
    .execute();
  let updatedAt: string | null = null;
  for (const row of rows) if (updatedAt === null || row.updated_at > updatedAt) updatedAt = row.updated_at;
  return {
    prices: rows.map(priceView).sort(comparePrices),
    updatedAt,
    sample: rows.some((r) => Number(r.sample) === 1),
  };
}

/** Distinct values in first-seen order. */
export function distinct<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
