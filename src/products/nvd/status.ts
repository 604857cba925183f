// GET /v1/nvd/status (free): the sync and KEV warmers, the sync's progress and rate-limit history, the
// lookup queue, this node's search index and the upstreams in use.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { Timestamp } from "./answer-types.ts";
import { FRESH_WITHIN_MS } from "./cve.ts";
import { CVE_LOOKUP_QUEUE } from "./lookup.ts";
import { NvdRepository } from "./repository.ts";
import { type NvdRuntime, nvdWarmers } from "./runtime.ts";
import { CVE_SYNC_STATE, type CveSyncState, KEV_STATE, type KevState } from "./sync-state.ts";
import { KEV_UPSTREAM, NVD_SOURCE, nvdMinIntervalMs, nvdUpstream } from "./upstream.ts";

const NullableTimestamp = Timestamp.nullable();

export const NvdStatusAnswer = z.object({
  ok: z.literal(true),
  warmers: z.array(WarmerStatusAnswer).describe("nvd.sync (every 2 hours) and nvd.kev (daily)"),
  sync: z.object({
    coveredSince: NullableTimestamp,
    syncedThrough: NullableTimestamp,
    syncedAt: NullableTimestamp,
    lastPageAt: NullableTimestamp,
    pending: z
      .object({
        start: Timestamp,
        end: Timestamp,
        nextIndex: z.number().int().nonnegative(),
        totalResults: z.number().int().nonnegative().nullable(),
      })
      .nullable()
      .describe("A window whose pages are not all stored yet"),
    rateLimited: z.object({ total: z.number().int().nonnegative(), lastAt: NullableTimestamp }),
  }),
  fresh: z.boolean().describe("The sync reached within the last 48 hours"),
  kev: z.object({
    catalogVersion: z.string().nullable(),
    entries: z.number().int().nonnegative(),
    fetchedAt: NullableTimestamp,
    checkedAt: NullableTimestamp,
  }),
  lookups: z
    .object({
      queued: z.number().int().nonnegative(),
      running: z.number().int().nonnegative(),
      done: z.number().int().nonnegative(),
      dead: z.number().int().nonnegative(),
    })
    .describe("Fetch-on-miss jobs for CVE ids"),
  index: z
    .object({
      loaded: z.boolean(),
      documents: z.number().int().nonnegative(),
      tokens: z.number().int().nonnegative(),
      approximateBytes: z
        .number()
        .int()
        .nonnegative()
        .describe("Estimated memory of the index on this node (ids, tokens, posting lists)"),
      generation: z.number().int().nonnegative().nullable(),
      builtAt: NullableTimestamp,
      readMs: z.number().int().nonnegative().nullable().describe("Reading the window from the store"),
      buildMs: z.number().int().nonnegative().nullable().describe("Building the index from it"),
    })
    .describe("This node's keyword index"),
  rateLimit: z.object({
    apiKey: z.boolean().describe("Whether an NVD API key is configured (never shown)"),
    requestsPer30s: z.number().int().positive(),
    minIntervalMs: z.number().int().positive(),
  }),
  recentDays: z.number().int().positive(),
  upstreams: z.object({ nvd: z.url(), kev: z.url() }),
  mode: z.enum(["live", "replay"]),
  generatedAt: Timestamp,
});

export function statusProduct(runtime: NvdRuntime) {
  const warmers = nvdWarmers(runtime);
  return product({
    sku: "nvd.status",
    method: "GET",
    path: "/v1/nvd/status",
    summary: "Status of the NVD CVE sync and the known-exploited catalogue (free)",
    description:
      "Free. The NVD sync's and the CISA KEV refresh's last runs and errors, how far the sync has reached, NVD " +
      "rate-limit refusals, queued CVE lookups, this node's search index, and the upstreams and limits in use.",
    status: "live",
    tags: ["security", "cve", "nvd", "status"],
    price: "0",
    answer: NvdStatusAnswer,
    source: NVD_SOURCE,

    async handle(_input, ctx) {
      const repository = NvdRepository.of(ctx.store);
      const [warmerRuns, sync, kev, lookups] = await Promise.all([
        Promise.all(warmers.map((w) => warmerStatus(ctx, w))),
        repository.getState<CveSyncState>(CVE_SYNC_STATE),
        repository.getState<KevState>(KEV_STATE),
        ctx.store.jobs.counts(CVE_LOOKUP_QUEUE),
      ]);
      const index = runtime.search.peek();
      const syncedThrough = sync?.syncedThrough ?? null;
      return ok({
        ok: true as const,
        warmers: warmerRuns,
        sync: {
          coveredSince: sync?.coveredSince ?? null,
          syncedThrough,
          syncedAt: sync?.syncedAt ?? null,
          lastPageAt: sync?.lastPageAt ?? null,
          pending: sync?.pending ?? null,
          rateLimited: sync?.rateLimited ?? { total: 0, lastAt: null },
        },
        fresh: syncedThrough !== null && Date.now() - Date.parse(syncedThrough) <= FRESH_WITHIN_MS,
        kev: {
          catalogVersion: kev?.catalogVersion ?? null,
          entries: kev?.entries ?? 0,
          fetchedAt: kev?.fetchedAt ?? null,
          checkedAt: kev?.checkedAt ?? null,
        },
        lookups,
        index: {
          loaded: index !== undefined,
          documents: index?.index.size ?? 0,
          tokens: index?.index.vocabulary ?? 0,
          approximateBytes: index?.index.approximateBytes() ?? 0,
          generation: index?.generation ?? null,
          builtAt: index?.builtAt ?? null,
          readMs: index?.readMs ?? null,
          buildMs: index?.buildMs ?? null,
        },
        rateLimit: {
          apiKey: runtime.settings.apiKey !== undefined,
          requestsPer30s: runtime.settings.apiKey ? 50 : 5,
          minIntervalMs: nvdMinIntervalMs(runtime.settings),
        },
        recentDays: runtime.settings.recentDays,
        upstreams: {
          nvd: ctx.upstreams.client(nvdUpstream(runtime.settings)).baseUrl,
          kev: ctx.upstreams.client(KEV_UPSTREAM).baseUrl,
        },
        mode: ctx.upstreams.mode,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
