// Free routes of the USPTO family: status (warmer, key, upstream), coverage (what is cached) and the field
// dictionary of the patent answers.
import { z } from "zod";
import { schemaRoute } from "../../catalog/field-dictionary.ts";
import { type AnyProduct, ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { GRANT_PREFIX, SEARCH_PREFIX, USPTO_CACHE } from "./patent.ts";
import type { UsptoSettings } from "./settings.ts";
import { BACKOFF_MS, odpSpec, USPTO_SOURCE } from "./upstream.ts";
import { RECENT_KEY, type RecentGrants, usptoWarmer } from "./warmer.ts";

export const UsptoStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe("The uspto.recent warmer, which caches the newest grants daily"),
  upstreamFetches: FetchHealthAnswer.describe("Fetches made for buyers (the warmer reports its own runs)"),
  apiKeyConfigured: z
    .boolean()
    .describe("USPTO_API_KEY is set (the Open Data Portal refuses calls without one)"),
  requestsPerMinute: z
    .number()
    .describe(
      "Most requests this service sends the portal a minute (one at a time, spaced by USPTO_MIN_INTERVAL_MS)",
    ),
  pausedUntil: z.iso
    .datetime()
    .nullable()
    .describe(
      `After a 429 every request waits (at least ${BACKOFF_MS / 1000} s, or the portal's Retry-After)`,
    ),
  upstream: z.url(),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export const UsptoCoverageAnswer = z.object({
  ok: z.literal(true),
  policy: z.string(),
  grantsCached: z.number().int().nonnegative(),
  searchesCached: z.number().int().nonnegative(),
  recent: z
    .object({
      since: z.iso.date().describe("Grants published since this day are cached by the warmer"),
      totalHits: z.number().int().nonnegative(),
      cached: z.number().int().nonnegative(),
      newestGrantDate: z.iso.date().nullable(),
      fetchedAt: z.iso.datetime(),
    })
    .nullable(),
  generatedAt: z.iso.datetime(),
});

export function usptoStatus(settings: UsptoSettings) {
  const warmer = usptoWarmer(settings);
  return product({
    sku: "uspto.status",
    method: "GET",
    path: "/v1/uspto/status",
    summary: "Status of the USPTO patent cache and warmer (free)",
    description:
      "Free. The daily warmer's last run and error, the last upstream error, whether the Open Data Portal key is set, the request pace, any back-off after a 429, and the upstream.",
    status: "live",
    tags: ["patents", "uspto", "status"],
    price: "0",
    answer: UsptoStatusAnswer,
    source: USPTO_SOURCE,
    async handle(_input, ctx) {
      const client = ctx.upstreams.client(odpSpec(settings));
      const budget = await client.budgetState();
      return ok({
        ok: true as const,
        warmer: await warmerStatus(ctx, warmer),
        upstreamFetches: await readFetchHealth(ctx, USPTO_CACHE),
        apiKeyConfigured: settings.apiKey !== undefined,
        requestsPerMinute: Math.floor(60_000 / Math.max(settings.minIntervalMs, 100)),
        pausedUntil:
          budget.pausedUntilMs !== null && budget.pausedUntilMs > Date.now()
            ? new Date(budget.pausedUntilMs).toISOString()
            : null,
        upstream: client.baseUrl,
        mode: ctx.upstreams.mode,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

export const usptoCoverage = product({
  sku: "uspto.coverage",
  method: "GET",
  path: "/v1/uspto/coverage",
  summary: "US patent grants cached by this service (free)",
  description:
    "Free. How many grants and searches are cached, and the window of recent grants the warmer keeps.",
  status: "live",
  tags: ["patents", "uspto", "coverage"],
  price: "0",
  answer: UsptoCoverageAnswer,
  source: USPTO_SOURCE,
  async handle(_input, ctx) {
    const [keys, recent] = await Promise.all([
      ctx.store.cache.keys(USPTO_CACHE),
      ctx.store.cache.get<RecentGrants>(USPTO_CACHE, RECENT_KEY),
    ]);
    // Cached "no such grant" and "query refused" answers are not counted.
    const docsOf = (prefix: string) =>
      Promise.all(
        keys
          .filter((k) => k.startsWith(prefix))
          .map((k) => ctx.store.cache.get<{ missing?: true; refused?: string }>(USPTO_CACHE, k)),
      );
    const [patentDocs, searchDocs] = await Promise.all([docsOf(GRANT_PREFIX), docsOf(SEARCH_PREFIX)]);
    return ok({
      ok: true as const,
      policy:
        "Every US grant the USPTO Open Data Portal holds can be asked for: a grant or search not cached is fetched on the first paid " +
        "request; grants published in the recent window are cached daily.",
      grantsCached: patentDocs.filter((d) => d && d.body.missing !== true && d.body.refused === undefined)
        .length,
      searchesCached: searchDocs.filter((d) => d && d.body.refused === undefined).length,
      recent: recent ? { ...recent.body, fetchedAt: recent.fetchedAt } : null,
      generatedAt: new Date().toISOString(),
    });
  },
});

export function usptoSchema(products: () => AnyProduct[]) {
  return schemaRoute({
    sku: "uspto.schema",
    path: "/v1/uspto/schema",
    family: "uspto",
    title: "US patent",
    products,
    source: USPTO_SOURCE,
    tags: ["patents", "uspto"],
  });
}
