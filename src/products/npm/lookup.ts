// The registry documents of a card and weekly downloads, cached by package (and version) and fetched live on a
// miss (see live-cache.ts): the abbreviated packument, one version's document, the full packument's times.
import type { HandlerContext } from "../../catalog/product.ts";
import { type LiveCacheResult, liveCached } from "../../upstream/live-cache.ts";
import type {
  FullPackumentFacts,
  StoredManifest,
  StoredMissing,
  StoredPackument,
  WeeklyDownloads,
} from "./normalise.ts";
import type { NpmSettings } from "./settings.ts";
import { fetchFullFacts, fetchManifest, fetchPackument, fetchWeeklyDownloads } from "./upstream.ts";

export const NPM_CACHE = "npm";

export const packumentKey = (name: string) => `packument:${name}`;
export const downloadsKey = (name: string) => `downloads:${name}`;
export const manifestKey = (name: string, version: string) => `manifest:${name}@${version}`;
export const fullKey = (name: string) => `full:${name}`;

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

export function lookupManifest(
  ctx: Ctx,
  settings: NpmSettings,
  name: string,
  version: string,
  timeoutMs?: number,
): Promise<LiveCacheResult<StoredManifest | StoredMissing>> {
  return liveCached(ctx, {
    cacheFamily: NPM_CACHE,
    key: manifestKey(name, version),
    ...(timeoutMs ? { timeoutMs } : {}),
    fetch: (previous) => fetchManifest(ctx, name, version, settings.packumentTtlMs, previous),
  });
}

/** The full packument's facts; a fetch that outlives `timeoutMs` still fills the cache. */
export function lookupFullFacts(
  ctx: Ctx,
  settings: NpmSettings,
  name: string,
  timeoutMs?: number,
): Promise<LiveCacheResult<FullPackumentFacts | StoredMissing>> {
  return liveCached(ctx, {
    cacheFamily: NPM_CACHE,
    key: fullKey(name),
    ...(timeoutMs ? { timeoutMs } : {}),
    fetch: (previous) => fetchFullFacts(ctx, name, settings.packumentTtlMs, previous),
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
