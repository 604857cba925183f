// The last good and bad upstream fetch of each gov route, shared by every node through the store: what
// GET /v1/gov reads to call a route without warmers `live`.
import type { Store } from "../../../store/store.ts";

const HEALTH_FAMILY = "gov-health";

export interface GovFetchHealth {
  lastOkAt: string | null;
  lastErrorAt: string | null;
  lastError: string | null;
}

const EMPTY: GovFetchHealth = { lastOkAt: null, lastErrorAt: null, lastError: null };

export async function readGovFetch(store: Store, sku: string): Promise<GovFetchHealth> {
  const doc = await store.cache.get<GovFetchHealth>(HEALTH_FAMILY, sku);
  return { ...EMPTY, ...doc?.body };
}

export async function recordGovFetch(
  store: Store,
  sku: string,
  outcome: { ok: true } | { ok: false; error: string },
  now = new Date(),
): Promise<void> {
  const at = now.toISOString();
  const health = await readGovFetch(store, sku);
  const next: GovFetchHealth = outcome.ok
    ? { ...health, lastOkAt: at }
    : { ...health, lastErrorAt: at, lastError: outcome.error.slice(0, 300) };
  await store.cache.put(HEALTH_FAMILY, sku, { body: next, fetchedAt: at });
}
