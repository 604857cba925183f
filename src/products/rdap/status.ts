// GET /v1/rdap/status (free): the bootstrap warmer, the cached bootstrap and domains, registries paused by 429s.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { BOOTSTRAP_KEY, type Bootstrap, RDAP_CACHE, rdapBootstrapWarmer } from "./bootstrap.ts";
import { RDAP_SUPPLEMENT } from "./supplement.ts";
import { RDAP_SOURCE } from "./upstream.ts";

export const RdapStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe(
    "The rdap.bootstrap warmer, which refreshes IANA's bootstrap file daily",
  ),
  bootstrap: z.object({
    tlds: z.number().int().nonnegative().describe("TLDs with an RDAP service in the cached bootstrap"),
    publication: z.string().nullable().describe("IANA's publication time of the cached file"),
    fetchedAt: z.iso.datetime().nullable(),
  }),
  supplement: z
    .object({
      tlds: z.array(z.string()).describe("TLDs routed by the supplement when IANA's file lists none"),
      updated: z.iso.date().describe("When the supplement was last reviewed"),
    })
    .describe("This service's list of registries IANA's bootstrap file omits, each entry with its source"),
  domainsCached: z.number().int().nonnegative(),
  upstreamFetches: FetchHealthAnswer.describe("Fetches of the bootstrap file and of registries"),
  pausedRegistries: z
    .array(z.object({ host: z.string(), until: z.iso.datetime() }))
    .describe("Registries that answered 429, paused until their Retry-After"),
  mode: z.enum(["live", "replay"]),
  generatedAt: z.iso.datetime(),
});

export const rdapStatus = product({
  sku: "rdap.status",
  method: "GET",
  path: "/v1/rdap/status",
  summary: "Status of the RDAP bootstrap and domain cache (free)",
  description:
    "Free. The bootstrap warmer's last run, the TLDs the cached IANA bootstrap routes, domains cached, and " +
    "registries paused after a 429.",
  status: "live",
  tags: ["rdap", "status"],
  price: "0",
  answer: RdapStatusAnswer,
  source: RDAP_SOURCE,
  async handle(_input, ctx) {
    const [runs, bootstrap, keys, fetches] = await Promise.all([
      warmerStatus(ctx, rdapBootstrapWarmer),
      ctx.store.cache.get<Bootstrap>(RDAP_CACHE, BOOTSTRAP_KEY),
      ctx.store.cache.keys(RDAP_CACHE),
      readFetchHealth(ctx, RDAP_CACHE),
    ]);
    const now = Date.now();
    const pauses = await Promise.all(
      keys
        .filter((k) => k.startsWith("pause:"))
        .map(async (k) => ({
          host: k.slice(6),
          doc: await ctx.store.cache.get<{ until: string }>(RDAP_CACHE, k),
        })),
    );
    return ok({
      ok: true as const,
      warmer: runs,
      bootstrap: {
        tlds: bootstrap ? Object.keys(bootstrap.body.services).length : 0,
        publication: bootstrap?.body.publication ?? null,
        fetchedAt: bootstrap?.fetchedAt ?? null,
      },
      supplement: { tlds: RDAP_SUPPLEMENT.entries.map((e) => e.tld), updated: RDAP_SUPPLEMENT.updated },
      domainsCached: keys.filter((k) => k.startsWith("domain:")).length,
      upstreamFetches: fetches,
      pausedRegistries: pauses
        .filter((p) => p.doc && Date.parse(p.doc.body.until) > now)
        .map((p) => ({ host: p.host, until: p.doc?.body.until as string })),
      mode: ctx.upstreams.mode,
      generatedAt: new Date().toISOString(),
    });
  },
});
