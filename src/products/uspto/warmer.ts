// The USPTO warmer: once a day, the grants the USPTO issued in the last few days (newest 100) are cached by
// number, so lookups of new grants are answered without asking the Open Data Portal.
import type { Warmer } from "../../catalog/product.ts";
import { cachePatents, USPTO_CACHE } from "./patent.ts";
import type { UsptoSettings } from "./settings.ts";
import { searchPatents, searchUrl } from "./upstream.ts";

const USPTO_WARMER = "uspto.recent";
export const RECENT_KEY = "recent";
const RECENT_SIZE = 100;
/** Every record (the query-string match-all the portal's public clients send); the grant-date range selects. */
const RECENT_QUERY = "*:*";

export interface RecentGrants {
  since: string;
  totalHits: number;
  cached: number;
  newestGrantDate: string | null;
}

export function usptoWarmer(settings: UsptoSettings): Warmer {
  return {
    name: USPTO_WARMER,
    everyMs: 24 * 3600_000,
    async run(ctx) {
      const since = new Date(Date.now() - settings.recentDays * 24 * 3600_000).toISOString().slice(0, 10);
      const { page, recordedSample } = await searchPatents(ctx, settings, {
        q: RECENT_QUERY,
        grantsOnly: { since },
        size: RECENT_SIZE,
      });
      const url = searchUrl(ctx, settings, RECENT_QUERY);
      await cachePatents(ctx, page.patents, url, recordedSample);
      const recent: RecentGrants = {
        since,
        totalHits: page.totalHits,
        cached: page.patents.length,
        newestGrantDate: page.patents[0]?.grantDate ?? null,
      };
      await ctx.store.cache.put(USPTO_CACHE, RECENT_KEY, {
        body: recent,
        fetchedAt: new Date().toISOString(),
        recordedSample,
      });
      return { ...recent };
    },
  };
}
