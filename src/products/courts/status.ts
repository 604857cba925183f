// GET /v1/courts/status (free): the court-opinion cache, the warmer, CourtListener's health and auth mode.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { healthState, pauseLeftSec, readHealth, searchBudget } from "./health.ts";
import { PHRASE_MAX_WORDS, parseCourtsQuery } from "./query.ts";
import { type CachedSearch, COURTS_FAMILY, isFresh } from "./search-cache.ts";
import { authMode, type CourtsSettings } from "./settings.ts";
import { COURTLISTENER_SOURCE, courtListenerSpec } from "./upstream.ts";
import { COURTS_WARMER, WARM_EVERY_MS } from "./warmer.ts";

const Timestamp = z.iso.datetime().nullable();

const WindowAnswer = z.object({
  limit: z.number().int().positive().describe("Searches allowed in the window"),
  used: z.number().int().nonnegative().describe("Searches sent (or booked) in the window, by every node"),
  left: z.number().int().nonnegative().describe("Searches left in the window"),
});

export const CourtsStatusAnswer = z.object({
  ok: z.literal(true),
  auth: z.enum(["anonymous", "token"]).describe("How this service accesses CourtListener now"),
  upstream: z
    .object({
      baseUrl: z.url().describe("CourtListener base URL this service searches"),
      state: z
        .enum(["unknown", "ok", "failing", "throttled"])
        .describe("unknown: never asked; throttled: CourtListener asked for a pause (429)"),
      lastOkAt: Timestamp,
      lastErrorAt: Timestamp,
      lastError: z.string().nullable(),
      lastStatus: z.number().int().nullable().describe("HTTP status of the last exchange"),
      throttledUntil: Timestamp.describe(
        "No search is sent before this time (CourtListener asked for a pause)",
      ),
      pauseLeftSec: z.number().int().nonnegative(),
      searchesToday: z
        .number()
        .int()
        .nonnegative()
        .describe("Searches sent to CourtListener in the last 24 hours, by every node"),
      minIntervalMs: z.number().int().nonnegative().describe("Least gap between two searches sent"),
    })
    .describe("CourtListener as this service last saw it"),
  budget: z
    .object({
      perMinute: WindowAnswer,
      perHour: WindowAnswer,
      perDay: WindowAnswer,
      warmSharePercent: z
        .number()
        .int()
        .positive()
        .describe("Share of each window the warmer may use; the rest is kept for buyers' uncached searches"),
    })
    .describe(
      "CourtListener's throttle for this account over sliding windows (COURTLISTENER_PER_*), shared by every node; " +
        "an uncached search when it is spent is answered 503 with Retry-After, not charged",
    ),
  cache: z.object({
    queries: z.number().int().nonnegative().describe("Searches cached (fresh or stale)"),
    ttlHours: z.number().positive().describe("A cached search is searched again after this long"),
    phraseMaxWords: z
      .number()
      .int()
      .positive()
      .describe("Queries of up to this many words match as a phrase"),
  }),
  warmer: WarmerStatusAnswer.describe("The daily warmer that searches the popular queries again"),
  warmQueries: z
    .array(
      z.object({
        query: z.string(),
        cached: z.boolean(),
        fresh: z.boolean(),
        fetchedAt: Timestamp,
        totalCount: z.number().int().nonnegative().nullable(),
        recordedSample: z.boolean(),
      }),
    )
    .describe("The popular queries kept warm, with what the cache holds for each"),
  mode: z.enum(["live", "replay"]).describe("live: real upstream; replay: recorded samples"),
  generatedAt: z.iso.datetime(),
});

export function courtsStatus(settings: CourtsSettings) {
  return product({
    sku: "courts.status",
    method: "GET",
    path: "/v1/courts/status",
    summary: "Status of the court-opinion cache and CourtListener (free)",
    description:
      "Free. How many searches are cached, the warmer's last run and counts, each popular query kept warm, " +
      "CourtListener's health as last seen (including a pause it asked for), the searches left in its " +
      "per-minute, hour and day limits, and whether this service searches anonymously or with a token.",
    status: "live",
    tags: ["courts", "status"],
    price: "0",
    answer: CourtsStatusAnswer,
    source: COURTLISTENER_SOURCE,

    async handle(_input, ctx) {
      const now = new Date();
      const [runs, health, budget, queries, warm] = await Promise.all([
        warmerStatus(ctx, { name: COURTS_WARMER, everyMs: WARM_EVERY_MS }),
        readHealth(ctx.store),
        searchBudget(ctx, settings),
        ctx.store.cache.count(COURTS_FAMILY),
        Promise.all(
          settings.warmQueries.map(async (text) => {
            const parsed = parseCourtsQuery(text);
            const doc: CachedDocument<CachedSearch> | undefined =
              "error" in parsed
                ? undefined
                : await ctx.store.cache.get<CachedSearch>(COURTS_FAMILY, parsed.key);
            return {
              query: text,
              cached: doc !== undefined,
              fresh: doc ? isFresh(doc, now) : false,
              fetchedAt: doc?.fetchedAt ?? null,
              totalCount: doc?.body.totalCount ?? null,
              recordedSample: doc?.recordedSample ?? false,
            };
          }),
        ),
      ]);
      const window = (name: "perMinute" | "perHour" | "perDay") =>
        budget.windows[name] ?? { limit: settings.limits[name], used: 0, left: settings.limits[name] };
      return ok({
        ok: true as const,
        auth: authMode(settings),
        upstream: {
          baseUrl: ctx.upstreams.client(courtListenerSpec(settings)).baseUrl,
          state: healthState(health, budget, now),
          lastOkAt: health.lastOkAt,
          lastErrorAt: health.lastErrorAt,
          lastError: health.lastError,
          lastStatus: health.lastStatus,
          throttledUntil: budget.pausedUntilMs === null ? null : new Date(budget.pausedUntilMs).toISOString(),
          pauseLeftSec: pauseLeftSec(budget, now),
          searchesToday: window("perDay").used,
          minIntervalMs: settings.minIntervalMs,
        },
        budget: {
          perMinute: window("perMinute"),
          perHour: window("perHour"),
          perDay: window("perDay"),
          warmSharePercent: Math.round(settings.warmShare * 100),
        },
        cache: {
          queries,
          ttlHours: settings.cacheTtlMs / 3600_000,
          phraseMaxWords: PHRASE_MAX_WORDS,
        },
        warmer: runs,
        warmQueries: warm,
        mode: ctx.upstreams.mode,
        generatedAt: now.toISOString(),
      });
    },
  });
}
