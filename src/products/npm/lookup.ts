// Packuments and weekly downloads, cached by package name and fetched live on a miss (see live-cache.ts).
import type { HandlerContext } from "../../catalog/product.ts";
import { type LiveCacheResult, liveCached } from "../../upstream/live-cache.ts";
import type { StoredPackument, WeeklyDownloads } from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { fetchPackument, fetchWeeklyDownloads } from "./upstream.ts";

export const NPM_CACHE = "npm";

export const packumentKey = (name: string) => `packument:${name}`;
export const downloadsKey = (name: string) => `downloads:${name}`;

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

export function lookupPackument(
  ctx: Ctx,
  settings: NpmSettings,
  name: string,
  timeoutMs?: number,
): Promise<LiveCacheResult<StoredPackument>> {
  return liveCached(ctx, {
    cacheFamily: NPM_CACHE,
    key: packumentKey(name),
    ...(timeoutMs ? { timeoutMs } : {}),
    fetch: (previous) => fetchPackument(ctx, name, settings.packumentTtlMs, previous),
  });
}

export function lookupDownloads(
  ctx: Ctx,
  name: string,
  timeoutMs?: number,
): Promise<LiveCacheResult<WeeklyDownloads | null>> {
  return liveCached(ctx, {
    cacheFamily: NPM_CACHE,
    key: downloadsKey(name),
    ...(timeoutMs ? { timeoutMs } : {}),
    fetch: () => fetchWeeklyDownloads(ctx, name),
  });
}
