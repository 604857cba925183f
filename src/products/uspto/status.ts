// Free routes of the USPTO family: status (warmer, key, upstream), coverage (what is cached) and the field
// dictionary of the patent answers.
import { z } from "zod";
import { schemaRoute } from "../../catalog/field-dictionary.ts";
import { type AnyProduct, ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { USPTO_CACHE } from "./patent.ts";
import type { UsptoSettings } from "./settings.ts";
import { patentsViewSpec, USPTO_SOURCE } from "./upstream.ts";
import { RECENT_KEY, type RecentGrants, usptoWarmer } from "./warmer.ts";

export const UsptoStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe("The uspto.recent warmer, which caches the newest grants daily"),
  upstreamFetches: FetchHealthAnswer.describe("Fetches made for buyers (the warmer reports its own runs)"),
  apiKeyConfigured: z
    .boolean()
    .describe("PATENTSVIEW_API_KEY is set (PatentSearch refuses calls without one)"),
  requestsPerMinute: z
    .number()
    .describe("Most requests this service sends PatentsView a minute (its limit: 45)"),
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
    summary: "Status of the PatentsView patent cache and warmer (free)",
    description:
      "Free. The daily warmer's last run and error, whether the PatentsView key is set, the request pace and upstream.",
    status: "live",
    tags: ["patents", "uspto", "status"],
    price: "0",
    answer: UsptoStatusAnswer,
    source: USPTO_SOURCE,
    async handle(_input, ctx) {
      return ok({
        ok: true as const,
        warmer: await warmerStatus(ctx, warmer),
        upstreamFetches: await readFetchHealth(ctx, USPTO_CACHE),
        apiKeyConfigured: settings.apiKey !== undefined,
        requestsPerMinute: settings.minIntervalMs > 0 ? Math.floor(60_000 / settings.minIntervalMs) : 45,
        upstream: ctx.upstreams.client(patentsViewSpec(settings)).baseUrl,
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
    const patentDocs = await Promise.all(
      keys
        .filter((k) => k.startsWith("patent:"))
        .map((k) => ctx.store.cache.get<{ missing?: true }>(USPTO_CACHE, k)),
    );
    return ok({
      ok: true as const,
      policy:
        "Every US grant PatentsView holds can be asked for: a grant or search not cached is fetched on the first paid " +
        "request; grants published in the recent window are cached daily.",
      grantsCached: patentDocs.filter((d) => d && d.body.missing !== true).length,
      searchesCached: keys.filter((k) => k.startsWith("search:")).length,
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
