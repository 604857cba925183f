// The npm warmer: keeps the configured popular packages' documents (abbreviated packument, full packument's
// facts, the latest version's document; each revalidated with its ETag: an unchanged package costs 304s) and
// weekly downloads fresh, so most buyers are answered from the cache.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { errorText } from "../../json.ts";
import { refreshOnce } from "../../upstream/live-cache.ts";
import { downloadsKey, fullKey, manifestKey, NPM_CACHE, packumentKey } from "./lookup.ts";
import type {
  FullPackumentFacts,
  StoredManifest,
  StoredMissing,
  StoredPackument,
  WeeklyDownloads,
} from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { fetchFullFacts, fetchManifest, fetchPackument, fetchWeeklyDownloads } from "./upstream.ts";

const NPM_WARMER = "npm.packages";
const NPM_WARM_EVERY_MS = 3600_000;

async function warmOne(
  ctx: HandlerContext,
  settings: NpmSettings,
  name: string,
): Promise<"changed" | "same"> {
  const previous = await ctx.store.cache.get<StoredPackument>(NPM_CACHE, packumentKey(name));
  const doc = await refreshOnce(
    ctx,
    {
      cacheFamily: NPM_CACHE,
      key: packumentKey(name),
      fetch: (prev) => fetchPackument(ctx, name, settings.packumentTtlMs, prev),
    },
    previous,
  );
  const ttl = settings.packumentTtlMs;
  const full = await ctx.store.cache.get<FullPackumentFacts | StoredMissing>(NPM_CACHE, fullKey(name));
  await refreshOnce(
    ctx,
    { cacheFamily: NPM_CACHE, key: fullKey(name), fetch: (prev) => fetchFullFacts(ctx, name, ttl, prev) },
    full,
  );
  const latest = doc.body.kind === "package" ? doc.body.distTags.latest : undefined;
  if (latest) {
    const key = manifestKey(name, latest);
    const manifest = await ctx.store.cache.get<StoredManifest | StoredMissing>(NPM_CACHE, key);
    await refreshOnce(
      ctx,
      { cacheFamily: NPM_CACHE, key, fetch: (prev) => fetchManifest(ctx, name, latest, ttl, prev) },
      manifest,
    );
  }
  await refreshOnce<WeeklyDownloads | null>(
    ctx,
    { cacheFamily: NPM_CACHE, key: downloadsKey(name), fetch: () => fetchWeeklyDownloads(ctx, name) },
    undefined,
  );
  return previous && previous.fetchedAt === doc.fetchedAt ? "same" : "changed";
}

export function npmWarmer(settings: NpmSettings): Warmer {
  return {
    name: NPM_WARMER,
    everyMs: NPM_WARM_EVERY_MS,
    async run(ctx) {
      let changed = 0;
      let unchanged = 0;
      const failed: string[] = [];
      for (const name of settings.warmPackages) {
        try {
          if ((await warmOne(ctx, settings, name)) === "changed") changed++;
          else unchanged++;
        } catch (error) {
          failed.push(name);
          ctx.log.warn({ name, err: errorText(error) }, "npm warm failed");
        }
      }
      if (settings.warmPackages.length > 0 && failed.length === settings.warmPackages.length) {
        throw new Error(`every package failed to refresh: ${failed.join(", ")}`);
      }
      return { packages: settings.warmPackages.length, changed, unchanged, failed: failed.length };
    },
  };
}
