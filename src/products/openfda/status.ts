// GET /v1/openfda/status (free): the label cache, the warmer and how this service queries openFDA.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { type CachedLabelSearch, cacheKey, isFresh, OPENFDA_FAMILY } from "./label-cache.ts";
import { parseLabelQuery } from "./query.ts";
import { authMode, type OpenFdaSettings } from "./settings.ts";
import { OPENFDA_SOURCE, OPENFDA_UPSTREAM } from "./upstream.ts";
import { OPENFDA_WARM_EVERY_MS, OPENFDA_WARMER } from "./warmer.ts";

const Timestamp = z.iso.datetime().nullable();

export const OpenFdaStatusAnswer = z.object({
  ok: z.literal(true),
  auth: z.enum(["anonymous", "key"]).describe("anonymous: 1,000 requests a day per IP; key: 120,000 a day"),
  dailyLimit: z.number().int().positive().describe("openFDA's daily request limit for this service's access"),
  cache: z.object({
    queries: z.number().int().nonnegative().describe("Drug names cached (fresh or stale)"),
    ttlHours: z.number().positive(),
  }),
  warmer: WarmerStatusAnswer.describe("The daily warmer that searches the popular names again"),
  warmQueries: z.array(
    z.object({
      query: z.string(),
      cached: z.boolean(),
      fresh: z.boolean(),
      match: z.boolean().nullable(),
      fetchedAt: Timestamp,
      recordedSample: z.boolean(),
    }),
  ),
  upstreamFetches: FetchHealthAnswer.describe(
    "openFDA searches made for buyers and the warmer; a search openFDA refuses as not supported (its 400) is " +
      "the query's fault and not counted as a failure",
  ),
  upstream: z.url().describe("Base URL of the openFDA API this service searches"),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export function openFdaStatus(settings: OpenFdaSettings) {
  return product({
    sku: "openfda.status",
    method: "GET",
    path: "/v1/openfda/status",
    summary: "Status of the openFDA drug label cache (free)",
    description:
      "Free. How many drug names are cached, the warmer's last run and counts, each popular name kept warm, " +
      "and whether this service queries openFDA anonymously or with an API key (and so its daily limit).",
    status: "live",
    tags: ["health", "openfda", "status"],
    price: "0",
    answer: OpenFdaStatusAnswer,
    source: OPENFDA_SOURCE,

    async handle(_input, ctx) {
      const now = new Date();
      const [runs, queries, fetches, warm] = await Promise.all([
        warmerStatus(ctx, { name: OPENFDA_WARMER, everyMs: OPENFDA_WARM_EVERY_MS }),
        ctx.store.cache.count(OPENFDA_FAMILY),
        readFetchHealth(ctx, OPENFDA_FAMILY),
        Promise.all(
          settings.warmQueries.map(async (text) => {
            const parsed = parseLabelQuery(text);
            const doc =
              "error" in parsed
                ? undefined
                : await ctx.store.cache.get<CachedLabelSearch>(OPENFDA_FAMILY, cacheKey(parsed));
            return {
              query: text,
              cached: doc !== undefined,
              fresh: doc ? isFresh(doc, now) : false,
              match: doc ? doc.body.labels.length > 0 : null,
              fetchedAt: doc?.fetchedAt ?? null,
              recordedSample: doc?.recordedSample ?? false,
            };
          }),
        ),
      ]);
      return ok({
        ok: true as const,
        auth: authMode(settings),
        dailyLimit: settings.apiKey ? 120_000 : 1000,
        cache: { queries, ttlHours: settings.cacheTtlMs / 3600_000 },
        warmer: runs,
        warmQueries: warm,
        upstreamFetches: fetches,
        upstream: ctx.upstreams.client(OPENFDA_UPSTREAM).baseUrl,
        mode: ctx.upstreams.mode,
        generatedAt: now.toISOString(),
      });
    },
  });
}
