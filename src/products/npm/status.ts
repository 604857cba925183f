// Free routes of the npm family: status (warmer and cache), coverage (what is cached) and the field dictionary.
import { z } from "zod";
import { schemaRoute } from "../../catalog/field-dictionary.ts";
import { type AnyProduct, ok, product } from "../../catalog/product.ts";
import { WarmerStatusAnswer, warmerStatus } from "../../catalog/warmer-status.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { FetchHealthAnswer, readFetchHealth } from "../../upstream/live-cache.ts";
import { NPM_CACHE } from "./lookup.ts";
import type { StoredPackument } from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { NPM_DOWNLOADS, NPM_REGISTRY, NPM_SOURCE } from "./upstream.ts";
import { npmWarmer } from "./warmer.ts";

const COVERAGE_MAX_LISTED = 1000;

export const NpmStatusAnswer = z.object({
  ok: z.literal(true),
  warmer: WarmerStatusAnswer.describe("The npm.packages warmer, which refreshes the popular packages hourly"),
  cache: z.object({
    packages: z.number().int().nonnegative().describe("Packuments cached (packages that exist)"),
    missing: z
      .number()
      .int()
      .nonnegative()
      .describe("Names the registry said do not exist or were unpublished"),
    downloads: z.number().int().nonnegative().describe("Weekly download counts cached"),
  }),
  upstreamFetches: FetchHealthAnswer,
  packumentTtlMinutes: z
    .number()
    .int()
    .positive()
    .describe("Freshness window before a packument is revalidated"),
  warmPackages: z.array(z.string()),
  upstreams: z.object({ registry: z.url(), downloads: z.url() }),
  mode: z.enum(["live", "replay"]).describe("live: real upstream; replay: recorded samples"),
  generatedAt: z.iso.datetime(),
});

export const NpmCoverageAnswer = z.object({
  ok: z.literal(true),
  policy: z.string().describe("Which packages are answered: any public package, cached on first request"),
  count: z.number().int().nonnegative().describe("Packages listed here"),
  totalCount: z.number().int().nonnegative().describe("Packages cached"),
  packages: z.array(
    z.object({
      name: z.string(),
      state: z.enum(["package", "unpublished", "missing"]),
      fetchedAt: z.iso.datetime(),
      expiresAt: z.iso.datetime().nullable().describe("When it is next revalidated on request"),
      warm: z.boolean().describe("Kept fresh by the hourly warmer"),
    }),
  ),
  generatedAt: z.iso.datetime(),
});

async function packuments(ctx: Parameters<AnyProduct["handle"]>[1]) {
  const keys = (await ctx.store.cache.keys(NPM_CACHE)).filter((k) => k.startsWith("packument:"));
  const docs = await Promise.all(keys.map((k) => ctx.store.cache.get<StoredPackument>(NPM_CACHE, k)));
  return docs.filter((d): d is CachedDocument<StoredPackument> => d !== undefined);
}

export function npmStatus(settings: NpmSettings) {
  const warmer = npmWarmer(settings);
  return product({
    sku: "registry.npm.status",
    method: "GET",
    path: "/v1/registry/npm/status",
    summary: "Status of the npm package-card cache (free)",
    description:
      "Free. The npm warmer's last run and error, how many packuments and download counts are cached, the " +
      "freshness window and the upstreams in use.",
    status: "live",
    tags: ["registry", "npm", "status"],
    price: "0",
    answer: NpmStatusAnswer,
    source: NPM_SOURCE,
    async handle(_input, ctx) {
      const [runs, docs, keys, fetches] = await Promise.all([
        warmerStatus(ctx, warmer),
        packuments(ctx),
        ctx.store.cache.keys(NPM_CACHE),
        readFetchHealth(ctx, NPM_CACHE),
      ]);
      return ok({
        ok: true as const,
        warmer: runs,
        cache: {
          packages: docs.filter((d) => d.body.kind === "package").length,
          missing: docs.filter((d) => d.body.kind !== "package").length,
          downloads: keys.filter((k) => k.startsWith("downloads:")).length,
        },
        upstreamFetches: fetches,
        packumentTtlMinutes: Math.round(settings.packumentTtlMs / 60_000),
        warmPackages: settings.warmPackages,
        upstreams: {
          registry: ctx.upstreams.client(NPM_REGISTRY).baseUrl,
          downloads: ctx.upstreams.client(NPM_DOWNLOADS).baseUrl,
        },
        mode: ctx.upstreams.mode,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

export function npmCoverage(settings: NpmSettings) {
  return product({
    sku: "registry.npm.coverage",
    method: "GET",
    path: "/v1/registry/npm/coverage",
    summary: "npm packages cached by this service (free)",
    description:
      "Free. Every public npm package can be asked for; this lists the packages cached now (at most " +
      `${COVERAGE_MAX_LISTED}, by name), whether each exists, when it was fetched and whether the warmer keeps it fresh.`,
    status: "live",
    tags: ["registry", "npm", "coverage"],
    price: "0",
    answer: NpmCoverageAnswer,
    source: NPM_SOURCE,
    async handle(_input, ctx) {
      const docs = await packuments(ctx);
      const warm = new Set(settings.warmPackages);
      const listed = docs.slice(0, COVERAGE_MAX_LISTED).map((d) => ({
        name: d.body.name,
        state: d.body.kind,
        fetchedAt: d.fetchedAt,
        expiresAt: d.expiresAt,
        warm: warm.has(d.body.name),
      }));
      return ok({
        ok: true as const,
        policy:
          "Any public npm package is answered: a package not cached is fetched from the registry on the first " +
          "paid request and cached; the warm list is refreshed hourly.",
        count: listed.length,
        totalCount: docs.length,
        packages: listed,
        generatedAt: new Date().toISOString(),
      });
    },
  });
}

export function npmSchema(products: () => AnyProduct[]) {
  return schemaRoute({
    sku: "registry.npm.schema",
    path: "/v1/registry/npm/schema",
    family: "npm",
    title: "npm package-card",
    products,
    source: NPM_SOURCE,
    tags: ["registry", "npm"],
  });
}
