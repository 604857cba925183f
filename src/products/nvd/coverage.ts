// GET /v1/nvd/coverage (free): the searchable CVE window, counts by severity, and the KEV catalogue on file.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { Timestamp } from "./answer-types.ts";
import { searchWindow } from "./live-search.ts";
import { NvdRepository } from "./repository.ts";
import type { NvdRuntime } from "./runtime.ts";
import { CVE_SYNC_STATE, type CveSyncState, KEV_STATE, type KevState } from "./sync-state.ts";
import { NVD_SOURCE } from "./upstream.ts";

const NullableTimestamp = Timestamp.nullable();

export const NvdCoverageAnswer = z.object({
  ok: z.literal(true),
  window: z
    .object({
      days: z.number().int().positive(),
      from: NullableTimestamp.describe("Searchable records were last modified from here …"),
      to: NullableTimestamp.describe("… to the newest record stored"),
    })
    .describe("What keyword search (q) covers; id lookups reach any CVE"),
  cves: z.object({
    stored: z.number().int().nonnegative().describe("Records stored, including older ones looked up by id"),
    searchable: z.number().int().nonnegative().describe("Records in the window, rejected ones left out"),
    bySeverity: z
      .record(z.string(), z.number().int().nonnegative())
      .describe("Searchable records by severity; 'unscored' for records NVD has not scored yet"),
  }),
  knownExploited: z.object({
    entries: z.number().int().nonnegative().describe("Entries of CISA's catalogue on file"),
    stored: z.number().int().nonnegative().describe("Of those, CVEs whose NVD record is stored"),
    catalogVersion: z.string().nullable(),
    dateReleased: z.string().nullable(),
    fetchedAt: NullableTimestamp,
  }),
  sync: z.object({
    coveredSince: NullableTimestamp.describe("Every NVD modification since then is stored"),
    syncedThrough: NullableTimestamp.describe("… up to here"),
    syncedAt: NullableTimestamp.describe("When the last window was completed"),
  }),
  notice: z.string(),
  generatedAt: Timestamp,
});

export function coverageProduct(runtime: NvdRuntime) {
  return product({
    sku: "nvd.coverage",
    method: "GET",
    path: "/v1/nvd/coverage",
    summary: "Cached CVE window and counts (free)",
    description:
      "Free. The window of recent CVEs keyword search covers, how many records are stored and searchable by " +
      "severity, the known-exploited catalogue on file, and how far the NVD sync has reached.",
    status: "live",
    tags: ["security", "cve", "nvd", "coverage"],
    price: "0",
    answer: NvdCoverageAnswer,
    source: NVD_SOURCE,

    async handle(_input, ctx) {
      const repository = NvdRepository.of(ctx.store);
      const [stored, kevCounts, sync, kev] = await Promise.all([
        repository.countAll(),
        repository.kevCounts(),
        repository.getState<CveSyncState>(CVE_SYNC_STATE),
        repository.getState<KevState>(KEV_STATE),
      ]);
      const { from, to } = await searchWindow(repository, sync, runtime.settings.recentDays);
      const bySeverity = from ? await repository.severityCounts(from) : {};
      return ok({
        ok: true as const,
        window: { days: runtime.settings.recentDays, from, to },
        cves: {
          stored,
          searchable: Object.values(bySeverity).reduce((sum, n) => sum + n, 0),
          bySeverity,
        },
        knownExploited: {
          entries: kevCounts.entries,
          stored: kevCounts.stored,
          catalogVersion: kev?.catalogVersion ?? null,
          dateReleased: kev?.dateReleased ?? null,
          fetchedAt: kev?.fetchedAt ?? null,
        },
        sync: {
          coveredSince: sync?.coveredSince ?? null,
          syncedThrough: sync?.syncedThrough ?? null,
          syncedAt: sync?.syncedAt ?? null,
        },
        notice: NVD_SOURCE.notice ?? "",
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
