// GET /v1/macro/fred/coverage (free): the series this service has cached, and those it refuses to sell.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { readAllSummaries } from "./documents.ts";
import type { FredSettings } from "./settings.ts";
import { FRED_SOURCE } from "./upstream.ts";

export const FredCoverageAnswer = z.object({
  ok: z.literal(true),
  count: z.number().int().nonnegative().describe("Series cached and for sale"),
  series: z.array(
    z.object({
      seriesId: z.string(),
      title: z.string(),
      units: z.string(),
      frequency: z.string(),
      lastUpdated: z.iso.datetime(),
      latestDate: z.iso.date().nullable(),
      count: z.number().int().nonnegative().describe("Observations cached"),
      copyright: z.string().nullable(),
      fetchedAt: z.iso.datetime(),
      recordedSample: z.boolean(),
    }),
  ),
  refused: z
    .array(z.object({ seriesId: z.string(), title: z.string(), reason: z.string() }))
    .describe("Series looked up but not sold because their owners forbid redistribution"),
  warmed: z
    .array(z.string())
    .describe("Series the warmer keeps cached (FRED_SERIES); others are fetched on request"),
  generatedAt: z.iso.datetime(),
});

export function fredCoverageProduct(settings: FredSettings) {
  return product({
    sku: "macro.fred.coverage",
    method: "GET",
    path: "/v1/macro/fred/coverage",
    summary: "FRED series cached by this service (free)",
    description:
      "Free. Every FRED series cached and for sale with its latest observation date and count, the series refused " +
      "because their owners forbid redistribution, and the series the warmer keeps fresh.",
    status: "live",
    tags: ["macro", "fred", "coverage"],
    price: "0",
    answer: FredCoverageAnswer,
    source: FRED_SOURCE,

    async handle(_input, ctx) {
      const summaries = await readAllSummaries(ctx.store);
      const series = [];
      const refused = [];
      for (const doc of summaries) {
        const s = doc.body;
        if (s.status === "ok") {
          series.push({
            seriesId: s.seriesId,
            title: s.title,
            units: s.units,
            frequency: s.frequency,
            lastUpdated: s.lastUpdated,
            latestDate: s.latestDate,
            count: s.count,
            copyright: s.copyright,
            fetchedAt: doc.fetchedAt,
            recordedSample: doc.recordedSample,
          });
        } else if (s.status === "refused")
          refused.push({ seriesId: s.seriesId, title: s.title, reason: s.reason });
      }
      return ok({
        ok: true as const,
        count: series.length,
        series,
        refused,
        warmed: settings.series,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
