// GET /v1/insider-info/status (free): the insider tips on file.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { todayUtc } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { mountainDb } from "../data/schema.ts";
import { newest } from "../data/views.ts";
import { insiderNotice } from "../shared/notice.ts";
import { isCurrent } from "./tips.ts";

export const InsiderStatusAnswer = z.object({
  ok: z.literal(true),
  tips: z.number().int(),
  current: z.number().int(),
  byCountry: z.record(z.string(), z.number().int()).describe("Current tips per country"),
  byKind: z.record(z.string(), z.number().int()).describe("Current tips per kind"),
  languages: z.array(z.string()),
  latestDate: z.iso.date().nullable(),
  updatedAt: z.iso.datetime().nullable(),
  sampleData: z.boolean(),
  generatedAt: z.iso.datetime(),
  notice: z.string(),
});

function countBy<T>(rows: T[], key: (row: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[key(row)] = (counts[key(row)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

export const insiderStatus = product({
  sku: "insider.status",
  method: "GET",
  path: "/v1/insider-info/status",
  summary: "Insider tips on file (free)",
  description:
    "Free. How many insider tips are on file and current, per country and kind, their languages and the last import.",
  status: "live",
  tags: ["insider", "mountain", "status"],
  price: "0",
  answer: InsiderStatusAnswer,

  async handle(_input, ctx) {
    await ensureSampleData(ctx);
    const rows = await mountainDb(ctx.store).selectFrom("mountain_insider_tips").selectAll().execute();
    const today = todayUtc();
    const current = rows.filter((t) => isCurrent(t, today));
    const sample = rows.some((t) => Number(t.sample) === 1);
    return ok({
      ok: true as const,
      tips: rows.length,
      current: current.length,
      byCountry: countBy(current, (t) => t.country),
      byKind: countBy(current, (t) => t.kind),
      languages: [...new Set(rows.map((t) => t.language))].sort(),
      latestDate: newest(rows.map((t) => t.date)),
      updatedAt: newest(rows.map((t) => t.updated_at)),
      sampleData: sample,
      generatedAt: new Date().toISOString(),
      notice: insiderNotice(sample),
    });
  },
});
