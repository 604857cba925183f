// Resorts with the ticket prices on file for each: the rows the inventory and operator answers list.
import { z } from "zod";
import type { MountainKysely, ResortTable } from "../data/schema.ts";
import { newest, ResortBody, resortView } from "../data/views.ts";

/** A resort as the inventory and operator answers list it: its card and its price coverage. */
export const InventoryResort = ResortBody.extend({
  area: z.string().nullable().describe("Area slug the resort belongs to"),
  ticketPrices: z.number().int().nonnegative().describe("Ticket price rows on file"),
  seasons: z.array(z.string()).describe("Seasons with prices, e.g. 2025/26"),
  updatedAt: z.iso.datetime(),
});

export async function withPriceCoverage(
  db: MountainKysely,
  rows: ResortTable[],
): Promise<{ resorts: Array<z.infer<typeof InventoryResort>>; pricesFromSample: boolean }> {
  const ids = rows.map((r) => r.id);
  const prices = ids.length
    ? await db
        .selectFrom("mountain_ticket_prices")
        .select(["resort_id", "season", "updated_at", "sample"])
        .where("resort_id", "in", ids)
        .execute()
    : [];
  const resorts = rows.map((row) => {
    const own = prices.filter((p) => p.resort_id === row.id);
    return {
      ...resortView(row),
      area: row.area,
      ticketPrices: own.length,
      seasons: [...new Set(own.map((p) => p.season))].sort(),
      updatedAt: newest([row.updated_at, ...own.map((p) => p.updated_at)])!,
    };
  });
  return { resorts, pricesFromSample: prices.some((p) => Number(p.sample) === 1) };
}
