// The last good and bad upstream fetch of each gov route, shared by every node through the store (the one
// fetch-health record of src/upstream/live-cache.ts, written by its withFetchHealth and keyed by sku): what
// GET /v1/gov reads to call a route without warmers `live`.

import type { Store } from "../../../store/store.ts";
import { type FetchHealth, readFetchHealth } from "../../../upstream/live-cache.ts";

type GovFetchHealth = FetchHealth;

export function readGovFetch(store: Store, sku: string): Promise<GovFetchHealth> {
  return readFetchHealth({ store }, sku);
}
