// Every cached OSM place of this node, in one spatial index with menu counts, rebuilt after each refresh or
// import on this node and, on other nodes, as soon as they see the version stamps change (checked every 10 s).
// The index holds what a search reads (place-table.ts); an answer reads the rest of the places it lists from
// the store (placeDetails).
import type { HandlerContext } from "../../../catalog/product.ts";
import { releaseMemorySoon } from "../../../memory-release.ts";
import type { Store } from "../../../store/store.ts";
import { currentVersion } from "../data/data-version.ts";
import { mountainDb } from "../data/schema.ts";
import type { PlaceType } from "../shared/params.ts";
import { PlaceIndex } from "./place-index.ts";
import { type PlaceDetails, type PlaceSummary, PlaceTable, type SummaryRow } from "./place-table.ts";

const VERSION_CHECK_MS = 10_000;

interface PlaceCatalog {
  index: PlaceIndex<PlaceSummary>;
  /** Every place's summary, findable by id. */
  byId: PlaceTable;
  version: string;
  builtAt: string;
  buildMs: number;
}

/** Rows read from the store at a time while the catalogue is built. */
const READ_PAGE = 1000;

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

/** The columns the catalogue holds (and the target, to choose among a place's rows). */
const SUMMARY_COLUMNS = [
  "id",
  "target",
  "name",
  "type",
  "lat",
  "lon",
  "fetched_at",
  "recorded_sample",
] as const;

type SummaryColumns = Awaited<ReturnType<typeof readPage>>[number];
type PlaceRow = Awaited<ReturnType<typeof readRows>>[number];

function readPage(store: Store, afterId: string | null) {
  let query = mountainDb(store).selectFrom("mountain_osm_places").select(SUMMARY_COLUMNS);
  if (afterId !== null) query = query.where("id", ">", afterId);
  return query.orderBy("id").orderBy("target").limit(READ_PAGE).execute();
}

function readRows(store: Store, ids: string[]) {
  return mountainDb(store).selectFrom("mountain_osm_places").selectAll().where("id", "in", ids).execute();
}

/** A place fetched for an area and for a resort ring is indexed once, with the area's row. */
function preferred<R extends { target: string }>(rows: R[]): R {
  let best = rows[0] as R;
  for (const row of rows) {
    const area = row.target.startsWith("area:");
    const bestArea = best.target.startsWith("area:");
    if ((area && !bestArea) || (area === bestArea && row.target < best.target)) best = row;
  }
  return best;
}

function summaryOf(row: SummaryColumns): SummaryRow {
  return {
    id: row.id,
    name: row.name,
    type: row.type as PlaceType,
    lat: Number(row.lat),
    lon: Number(row.lon),
    fetchedAt: row.fetched_at,
    recordedSample: Number(row.recorded_sample) === 1,
  };
}

function detailsOf(row: PlaceRow, menuItemCount: number): PlaceDetails {
  return {
    ...summaryOf(row),
    cuisine: row.cuisine ? (JSON.parse(row.cuisine) as string[]) : null,
    address: row.address ? (JSON.parse(row.address) as Record<string, string>) : null,
    hours: row.hours,
    phone: row.phone,
    website: row.website,
    country: row.country,
    area: row.area,
    currency: row.currency,
    menuItemCount,
  };
}

/** Ids looked up in the store with one statement. */
const DETAILS_BATCH = 500;

/**
 * Every field of the catalogue's places with these ids, read from the store (the row the catalogue chose for
 * each), with the catalogue's menu counts. An id the catalogue does not hold, or whose rows left the store since
 * it was built, is not in the answer.
 */
export async function placeDetails(
  ctx: Pick<HandlerContext, "store">,
  catalog: PlaceCatalog,
  ids: readonly string[],
): Promise<Map<string, PlaceDetails>> {
  const wanted = new Map<string, number>();
  for (const id of ids) {
    const at = catalog.byId.indexOf(id);
    if (at >= 0) wanted.set(id, catalog.byId.menuItemCount(at));
  }
  const rowsOf = new Map<string, PlaceRow[]>();
  const unique = [...wanted.keys()];
  for (let i = 0; i < unique.length; i += DETAILS_BATCH) {
    for (const row of await readRows(ctx.store, unique.slice(i, i + DETAILS_BATCH))) {
      const rows = rowsOf.get(row.id);
      if (rows) rows.push(row);
      else rowsOf.set(row.id, [row]);
    }
  }
  const details = new Map<string, PlaceDetails>();
  for (const [id, menuItemCount] of wanted) {
    const rows = rowsOf.get(id);
    if (rows) details.set(id, detailsOf(preferred(rows), menuItemCount));
  }
  return details;
}

/** Search hits with every field of their places, in the same order (see placeDetails). */
export async function withDetails<H extends { item: PlaceSummary }>(
  ctx: Pick<HandlerContext, "store">,
  catalog: PlaceCatalog,
  hits: readonly H[],
): Promise<Array<Omit<H, "item"> & { item: PlaceDetails }>> {
  const details = await placeDetails(
    ctx,
    catalog,
    hits.map((h) => h.item.id),
  );
  return hits.flatMap((hit) => {
    const item = details.get(hit.item.id);
    return item ? [{ ...hit, item }] : [];
  });
}

/** Reads the places a page at a time into columns: the rows of one page at most are objects at once. */
async function build(store: Store, version: string): Promise<PlaceCatalog> {
  const started = performance.now();
  const db = mountainDb(store);
  const [counts, total] = await Promise.all([
    db
      .selectFrom("mountain_menu_items")
      .innerJoin("mountain_menus", "mountain_menus.id", "mountain_menu_items.menu_id")
      .select(["mountain_menu_items.menu_id as id", (eb) => eb.fn.countAll<string | number>().as("n")])
      .groupBy("mountain_menu_items.menu_id")
      .execute(),
    db
      .selectFrom("mountain_osm_places")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  const menuItems = new Map(counts.map((c) => [c.id, Number(c.n)]));
  const table = new PlaceTable(Number(total.n));
  for (let afterId: string | null = null; ; ) {
    const rows = await readPage(store, afterId);
    let end = rows.length;
    if (rows.length === READ_PAGE) {
      // A full page may stop part-way through one place's rows: they are read again with the next page.
      const lastId = rows[end - 1]?.id;
      while (end > 0 && rows[end - 1]?.id === lastId) end--;
      if (end === 0) end = rows.length;
    }
    for (let i = 0; i < end; ) {
      let j = i + 1;
      while (j < end && rows[j]?.id === rows[i]?.id) j++;
      const row = preferred(rows.slice(i, j));
      table.push(summaryOf(row), menuItems.get(row.id) ?? 0);
      i = j;
    }
    if (rows.length < READ_PAGE) break;
    afterId = (rows[end - 1] as SummaryColumns).id;
  }
  table.seal();
  return {
    index: new PlaceIndex(table),
    byId: table,
    version,
    builtAt: new Date().toISOString(),
    buildMs: Math.round(performance.now() - started),
  };
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
      releaseMemorySoon();
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
