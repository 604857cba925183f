// CourtListener's health as this service saw it, shared by every node through the store: the last good
// and bad exchange, a pause CourtListener asked for (429 Retry-After), and searches sent today.
import type { Store } from "../../store/store.ts";

export const COURTS_META_FAMILY = "courts-meta";
export const HEALTH_KEY = "upstream";

export interface UpstreamHealth {
  lastOkAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
  lastStatus: number | null;
  /** No search is sent before this time (ISO); null when CourtListener has not asked for a pause. */
  throttledUntil: string | null;
  /** UTC day of `searchesOnDay`. */
  day: string | null;
  /** Searches sent to CourtListener on `day` (approximate across nodes: a read-modify-write). */
  searchesOnDay: number;
}

export type HealthState = "unknown" | "ok" | "failing" | "throttled";

const EMPTY: UpstreamHealth = {
  lastOkAt: null,
  lastErrorAt: null,
  lastError: null,
  lastStatus: null,
  throttledUntil: null,
  day: null,
  searchesOnDay: 0,
};

/** `maxAgeMs` > 0 reads through the per-process memo (other nodes' writes show within that time). */
export async function readHealth(store: Store, maxAgeMs = 0): Promise<UpstreamHealth> {
  const doc =
    maxAgeMs > 0
      ? await store.cache.getRecent<UpstreamHealth>(COURTS_META_FAMILY, HEALTH_KEY, maxAgeMs)
      : await store.cache.get<UpstreamHealth>(COURTS_META_FAMILY, HEALTH_KEY);
  return { ...EMPTY, ...doc?.body };
}

/** Seconds left of a pause CourtListener asked for, or 0. */
export function pauseLeftSec(health: UpstreamHealth, now = new Date()): number {
  if (!health.throttledUntil) return 0;
  return Math.max(0, Math.ceil((Date.parse(health.throttledUntil) - now.getTime()) / 1000));
}

export function healthState(health: UpstreamHealth, now = new Date()): HealthState {
  if (pauseLeftSec(health, now) > 0) return "throttled";
  if (!health.lastOkAt && !health.lastErrorAt) return "unknown";
  if (!health.lastErrorAt) return "ok";
  if (!health.lastOkAt) return "failing";
  return health.lastOkAt >= health.lastErrorAt ? "ok" : "failing";
}

export type Exchange =
  | { ok: true }
  | { ok: false; error: string; status: number | undefined; pauseSec: number | undefined };

export async function recordExchange(store: Store, exchange: Exchange, now = new Date()): Promise<void> {
  const health = await readHealth(store);
  const at = now.toISOString();
  const day = at.slice(0, 10);
  const next: UpstreamHealth = {
    ...health,
    day,
    searchesOnDay: (health.day === day ? health.searchesOnDay : 0) + 1,
  };
  if (exchange.ok) {
    next.lastOkAt = at;
    next.lastStatus = 200;
  } else {
    next.lastErrorAt = at;
    next.lastError = exchange.error.slice(0, 500);
    next.lastStatus = exchange.status ?? null;
    if (exchange.pauseSec !== undefined) {
      next.throttledUntil = new Date(now.getTime() + exchange.pauseSec * 1000).toISOString();
    }
  }
  await store.cache.put(COURTS_META_FAMILY, HEALTH_KEY, { body: next, fetchedAt: at });
}
