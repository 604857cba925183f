// The npm warmer: keeps the configured popular packages' packuments (revalidated with their ETag: an
// unchanged package costs a 304) and weekly downloads fresh, so most buyers are answered from the cache.
import type { HandlerContext, Warmer } from "../../catalog/product.ts";
import { refreshOnce } from "../../upstream/live-cache.ts";
import { downloadsKey, NPM_CACHE, packumentKey } from "./lookup.ts";
import type { StoredPackument, WeeklyDownloads } from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { fetchPackument, fetchWeeklyDownloads } from "./upstream.ts";

export const NPM_WARMER = "npm.packages";
export const NPM_WARM_EVERY_MS = 3600_000;

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
          ctx.log.warn(
            { name, err: error instanceof Error ? error.message : String(error) },
            "npm warm failed",
          );
        }
      }
      if (settings.warmPackages.length > 0 && failed.length === settings.warmPackages.length) {
        throw new Error(`every package failed to refresh: ${failed.join(", ")}`);
      }
      return { packages: settings.warmPackages.length, changed, unchanged, failed: failed.length };
    },
  };
}
