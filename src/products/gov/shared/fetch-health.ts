// The last good and bad upstream fetch of each gov route, shared by every node through the store (the one
// fetch-health record of src/upstream/live-cache.ts, keyed by sku): what GET /v1/gov reads to call a route
// without warmers `live`.

import type { Store } from "../../../store/store.ts";
import { type FetchHealth, readFetchHealth, recordFetchHealth } from "../../../upstream/live-cache.ts";

export type GovFetchHealth = FetchHealth;

export function readGovFetch(store: Store, sku: string): Promise<GovFetchHealth> {
  return readFetchHealth({ store }, sku);
}

export function recordGovFetch(
  store: Store,
  sku: string,
  outcome: { ok: true } | { ok: false; error: string },
  now = new Date(),
): Promise<void> {
  return recordFetchHealth({ store }, sku, outcome.ok ? undefined : new Error(outcome.error), now);
}
