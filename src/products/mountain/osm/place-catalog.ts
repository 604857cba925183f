// Every cached OSM place of this node, in one spatial index with menu counts, rebuilt after each refresh or
// import on this node and, on other nodes, as soon as they see the version stamps change (checked every 10 s).
import type { HandlerContext } from "../../../catalog/product.ts";
import type { Store } from "../../../store/store.ts";
import { currentVersion } from "../data/data-version.ts";
import { mountainDb } from "../data/schema.ts";
import type { PlaceType } from "../shared/params.ts";
import type { Place } from "./normalise.ts";
import { PlaceIndex } from "./place-index.ts";

const VERSION_CHECK_MS = 10_000;

export interface IndexedPlace extends Place {
  country: string;
  area: string;
  currency: string;
  fetchedAt: string;
  recordedSample: boolean;
  menuItemCount: number;
}

export interface PlaceCatalog {
  index: PlaceIndex<IndexedPlace>;
  byId: Map<string, IndexedPlace>;
  version: string;
  builtAt: string;
}

interface Holder {
  current?: PlaceCatalog;
  building?: Promise<PlaceCatalog>;
  stale: boolean;
}

const holders = new WeakMap<Store, Holder>();

function holderOf(store: Store): Holder {
  let holder = holders.get(store);
  if (!holder) {
    holder = { stale: true };
    holders.set(store, holder);
  }
  return holder;
}

/** This node wrote places or curated data: the next request rebuilds the index. */
export function invalidatePlaces(store: Store): void {
  holderOf(store).stale = true;
}

async function build(store: Store, version: string): Promise<PlaceCatalog> {
  const db = mountainDb(store);
  const [rows, counts] = await Promise.all([
    db.selectFrom("mountain_osm_places").selectAll().execute(),
    db
      .selectFrom("mountain_menu_items")
      .innerJoin("mountain_menus", "mountain_menus.id", "mountain_menu_items.menu_id")
      .select(["mountain_menu_items.menu_id as id", (eb) => eb.fn.countAll<string | number>().as("n")])
      .groupBy("mountain_menu_items.menu_id")
      .execute(),
  ]);
  const menuItems = new Map(counts.map((c) => [c.id, Number(c.n)]));
  // A place fetched for an area and for a resort ring is indexed once, with the area's slug.
  rows.sort(
    (a, b) =>
      Number(b.target.startsWith("area:")) - Number(a.target.startsWith("area:")) ||
      (a.target < b.target ? -1 : 1),
  );
  const byId = new Map<string, IndexedPlace>();
  for (const row of rows) {
    if (byId.has(row.id)) continue;
    byId.set(row.id, {
      id: row.id,
      name: row.name,
      type: row.type as PlaceType,
      cuisine: row.cuisine ? (JSON.parse(row.cuisine) as string[]) : null,
      address: row.address ? (JSON.parse(row.address) as Record<string, string>) : null,
      lat: Number(row.lat),
      lon: Number(row.lon),
      hours: row.hours,
      phone: row.phone,
      website: row.website,
      country: row.country,
      area: row.area,
      currency: row.currency,
      fetchedAt: row.fetched_at,
      recordedSample: Number(row.recorded_sample) === 1,
      menuItemCount: menuItems.get(row.id) ?? 0,
    });
  }
  return { index: new PlaceIndex([...byId.values()]), byId, version, builtAt: new Date().toISOString() };
}

export async function placeCatalog(ctx: Pick<HandlerContext, "store">): Promise<PlaceCatalog> {
  const holder = holderOf(ctx.store);
  if (holder.building) return holder.building;
  const version = await currentVersion(ctx.store, VERSION_CHECK_MS);
  if (holder.current && !holder.stale && holder.current.version === version) return holder.current;
  if (holder.building) return holder.building;
  holder.stale = false;
  holder.building = build(ctx.store, version)
    .then((catalog) => {
      holder.current = catalog;
      return catalog;
    })
    .catch((error) => {
      holder.stale = true;
      throw error;
    })
    .finally(() => {
      holder.building = undefined;
    });
  return holder.building;
}
