// Reading insider tips: which are current, and their answer shape.
import { z } from "zod";
import type { HandlerContext } from "../../../catalog/product.ts";
import { todayUtc } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { type InsiderTipTable, mountainDb } from "../data/schema.ts";
import { newest, TipBody, tipView } from "../data/views.ts";

export const INSIDER_PRICE = "1.00";
export const EARLY_OPENING = "early-opening";

export const TipsAnswer = z.object({
  count: z.number().int(),
  tips: z.array(TipBody).describe("Newest first"),
  updatedAt: z.iso.datetime().nullable().describe("Last import of these tips"),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

/** A tip is current until its validUntil date (inclusive); a tip without one stays current. */
export function isCurrent(tip: Pick<InsiderTipTable, "valid_until">, today: string): boolean {
  return tip.valid_until === null || tip.valid_until >= today;
}

export async function readTips(
  ctx: HandlerContext,
  filter: { id?: string; kind?: string; country?: string; currentOnly: boolean },
) {
  await ensureSampleData(ctx);
  const db = mountainDb(ctx.store);
  let query = db.selectFrom("mountain_insider_tips").selectAll();
  if (filter.id) query = query.where("id", "=", filter.id);
  if (filter.kind) query = query.where("kind", "=", filter.kind);
  if (filter.country) query = query.where("country", "=", filter.country);
  const today = todayUtc();
  const rows = (await query.execute())
    .filter((t) => !filter.currentOnly || isCurrent(t, today))
    .sort((a, b) => (a.date === b.date ? a.id.localeCompare(b.id) : a.date < b.date ? 1 : -1));
  const resortIds = [...new Set(rows.flatMap((t) => (t.resort_id ? [t.resort_id] : [])))];
  const names = new Map(
    resortIds.length
      ? (
          await db
            .selectFrom("mountain_resorts")
            .select(["id", "name"])
            .where("id", "in", resortIds)
            .execute()
        ).map((r) => [r.id, r.name])
      : [],
  );
  return {
    rows,
    tips: rows.map((t) => tipView(t, t.resort_id ? (names.get(t.resort_id) ?? null) : null)),
    updatedAt: newest(rows.map((t) => t.updated_at)),
    sample: rows.some((t) => Number(t.sample) === 1),
  };
}
