// The mountain family's own tables. JSON columns are text; timestamps are ISO-8601 text; flags are 0/1.
import type { Kysely } from "kysely";
import type { HandlerContext } from "../../../catalog/product.ts";
import type { Store } from "../../../store/store.ts";

export interface AreaTable {
  id: string;
  name: string;
  country: string;
  region: string;
  currency: string;
  south: number;
  west: number;
  north: number;
  east: number;
  sample: number;
  updated_at: string;
}

export interface ResortTable {
  id: string;
  name: string;
  country: string;
  region: string;
  state: string | null;
  area: string | null;
  operator: string;
  official_site: string;
  booking_url: string;
  price_list_url: string;
  currency: string;
  lat: number;
  lon: number;
  location: string;
  location_name: string;
  sample: number;
  updated_at: string;
}

export interface TicketPriceTable {
  id: string;
  resort_id: string;
  season: string;
  season_band: string;
  /** JSON: [{ from, to }] inclusive YYYY-MM-DD ranges. */
  band_dates: string;
  ticket_type: string;
  age_band: string;
  age_range: string | null;
  price: number;
  currency: string;
  source_url: string;
  collected_at: string;
  sample: number;
  updated_at: string;
}

export interface MenuTable {
  /** The restaurant id, osm-node-<n>: one menu per restaurant. */
  id: string;
  /** JSON string array. */
  meal_periods: string;
  source_kind: string;
  source_app: string | null;
  source_url: string;
  menu_type: string;
  menu_date: string;
  collected_at: string;
  currency: string;
  sample: number;
  updated_at: string;
}

export interface MenuItemTable {
  id: string;
  menu_id: string;
  position: number;
  name: string;
  price: number;
  currency: string;
  category: string | null;
  portion: string | null;
  sample: number;
  updated_at: string;
}

export interface CorridorTable {
  id: string;
  name: string;
  country: string;
  region: string;
  description: string | null;
  /** JSON: [[lat, lon], …] in travel order. */
  path: string;
  buffer_km: number;
  /** JSON string array of resort ids. */
  resorts: string;
  sample: number;
  updated_at: string;
}

export interface InsiderTipTable {
  id: string;
  resort_id: string | null;
  country: string;
  date: string;
  valid_until: string | null;
  language: string;
  kind: string;
  title: string | null;
  text: string;
  source_url: string | null;
  sample: number;
  updated_at: string;
}

/** One OSM place as fetched for one target (an area bbox or a resort ring); a place may be in several. */
interface OsmPlaceTable {
  target: string;
  id: string;
  name: string;
  type: string;
  /** JSON string array, or null when OSM has no cuisine tag. */
  cuisine: string | null;
  /** JSON object of addr:* tags without the prefix, or null. */
  address: string | null;
  lat: number;
  lon: number;
  hours: string | null;
  phone: string | null;
  website: string | null;
  country: string;
  area: string;
  currency: string;
  fetched_at: string;
  recorded_sample: number;
}

/** The fetch state of every Overpass target. */
export interface OsmTargetTable {
  id: string;
  kind: string;
  ref: string;
  attempted_at: string | null;
  fetched_at: string | null;
  error: string | null;
  error_at: string | null;
  places: number;
  recorded_sample: number;
  source_url: string | null;
}

export interface MountainDb {
  mountain_areas: AreaTable;
  mountain_resorts: ResortTable;
  mountain_ticket_prices: TicketPriceTable;
  mountain_menus: MenuTable;
  mountain_menu_items: MenuItemTable;
  mountain_corridors: CorridorTable;
  mountain_insider_tips: InsiderTipTable;
  mountain_osm_places: OsmPlaceTable;
  mountain_osm_targets: OsmTargetTable;
}

export type MountainKysely = Kysely<MountainDb>;

export function mountainDb(store: Store | HandlerContext["store"]): MountainKysely {
  return store.db as unknown as MountainKysely;
}
