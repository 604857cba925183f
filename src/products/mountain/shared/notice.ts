// Attribution and disclaimers carried in every answer's `notice`.
import type { SourceInfo } from "../../../catalog/product.ts";

const OSM_ATTRIBUTION = "© OpenStreetMap contributors";
const OSM_COPYRIGHT_URL = "https://www.openstreetmap.org/copyright";
const OSM_NOTICE =
  `Restaurant places: ${OSM_ATTRIBUTION}, available under the Open Database License (ODbL) 1.0 ` +
  `(${OSM_COPYRIGHT_URL}); this cache of OpenStreetMap data is offered under the ODbL.`;

const SAMPLE_NOTICE =
  "SAMPLE DATA, NOT REAL: this answer uses paycall's built-in sample dataset (every record is flagged sample " +
  'and named "Sample"); its resorts, prices, menus and tips are invented placeholders for demos and tests.';

const MENU_NOTICE =
  "Menus and prices are curated by the operator from the restaurant's own website or a delivery app on the " +
  "collection date shown; they may have changed since.";

const SKI_NOTICE =
  "Lift-ticket prices are curated by the operator from each resort's published price list on the collection " +
  "date shown; check the resort's official price list or booking site before buying.";

const INSIDER_NOTICE =
  "Insider tips are curated by the operator in the local language; they are hints, not guarantees.";

function join(parts: Array<string | false>): string {
  return parts.filter(Boolean).join(" ");
}

export function foodNotice(sample: boolean, withMenus = true): string {
  return join([sample && SAMPLE_NOTICE, OSM_NOTICE, withMenus && MENU_NOTICE]);
}

export function skiNotice(sample: boolean): string {
  return join([sample && SAMPLE_NOTICE, SKI_NOTICE]);
}

export function insiderNotice(sample: boolean): string {
  return join([sample && SAMPLE_NOTICE, INSIDER_NOTICE]);
}

export function tripNotice(sample: boolean): string {
  return join([sample && SAMPLE_NOTICE, SKI_NOTICE, OSM_NOTICE]);
}

export const OSM_SOURCE: SourceInfo = {
  name: "OpenStreetMap through the Overpass API (amenity restaurant, cafe, bar, pub, fast_food)",
  url: "https://www.openstreetmap.org/",
  licence: { name: "Open Database License (ODbL) 1.0", url: OSM_COPYRIGHT_URL, attribution: OSM_ATTRIBUTION },
  notice: OSM_NOTICE,
};
