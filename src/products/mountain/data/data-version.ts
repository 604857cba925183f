// Version stamps in the shared cache: other nodes see a new import or OSM refresh and rebuild their indexes.
import type { Store } from "../../../store/store.ts";

const MOUNTAIN_FAMILY = "mountain";
const DATA_VERSION_KEY = "_data_version";
const OSM_VERSION_KEY = "_osm_version";

export async function bumpDataVersion(store: Store): Promise<void> {
  const at = new Date().toISOString();
  await store.cache.put(MOUNTAIN_FAMILY, DATA_VERSION_KEY, { body: { at }, fetchedAt: at });
}

export async function bumpOsmVersion(store: Store): Promise<void> {
  const at = new Date().toISOString();
  await store.cache.put(MOUNTAIN_FAMILY, OSM_VERSION_KEY, { body: { at }, fetchedAt: at });
}

/** Both stamps as one string, read at most `maxAgeMs` ago. */
export async function currentVersion(store: Store, maxAgeMs: number): Promise<string> {
  const [data, osm] = await Promise.all([
    store.cache.getRecent<{ at: string }>(MOUNTAIN_FAMILY, DATA_VERSION_KEY, maxAgeMs),
    store.cache.getRecent<{ at: string }>(MOUNTAIN_FAMILY, OSM_VERSION_KEY, maxAgeMs),
  ]);
  return `${data?.body.at ?? "-"}|${osm?.body.at ?? "-"}`;
}
