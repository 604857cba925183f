// The US states, the District of Columbia and the inhabited territories NWS forecasts for: postal code, name
// and bounding box (west, south, east, north in degrees, from the Census Bureau's state extents, padded by
// 0.05°). Boxes overlap neighbours (parts of Canada and Mexico fall inside), so a point inside a box can still
// be one NWS has no grid for; NWS then answers 404 and so do we, uncharged.

interface Region {
  code: string;
  name: string;
  kind: "state" | "district" | "territory";
  /** One box, or two for Alaska (its Aleutians cross the 180th meridian). */
  boxes: Array<[west: number, south: number, east: number, north: number]>;
}

const PAD = 0.05;

function region(
  code: string,
  name: string,
  kind: Region["kind"],
  ...boxes: Array<[number, number, number, number]>
): Region {
  return {
    code,
    name,
    kind,
    boxes: boxes.map(([w, s, e, n]) => [
      Math.max(-180, w - PAD),
      Math.max(-90, s - PAD),
      Math.min(180, e + PAD),
      Math.min(90, n + PAD),
    ]),
  };
}

export const REGIONS: Region[] = [
  region("AL", "Alabama", "state", [-88.47, 30.14, -84.89, 35.01]),
  region("AK", "Alaska", "state", [-180, 51.21, -129.98, 71.39], [172.44, 51.21, 180, 53.02]),
  region("AZ", "Arizona", "state", [-114.82, 31.33, -109.04, 37.0]),
  region("AR", "Arkansas", "state", [-94.62, 33.0, -89.64, 36.5]),
  region("CA", "California", "state", [-124.48, 32.53, -114.13, 42.01]),
  region("CO", "Colorado", "state", [-109.06, 36.99, -102.04, 41.0]),
  region("CT", "Connecticut", "state", [-73.73, 40.95, -71.79, 42.05]),
  region("DE", "Delaware", "state", [-75.79, 38.45, -75.05, 39.84]),
  region("DC", "District of Columbia", "district", [-77.12, 38.79, -76.91, 39.0]),
  region("FL", "Florida", "state", [-87.63, 24.4, -79.97, 31.0]),
  region("GA", "Georgia", "state", [-85.61, 30.36, -80.84, 35.0]),
  region("HI", "Hawaii", "state", [-178.33, 18.87, -154.75, 28.45]),
  region("ID", "Idaho", "state", [-117.24, 41.99, -111.04, 49.0]),
  region("IL", "Illinois", "state", [-91.51, 36.97, -87.02, 42.51]),
  region("IN", "Indiana", "state", [-88.1, 37.77, -84.78, 41.76]),
  region("IA", "Iowa", "state", [-96.64, 40.38, -90.14, 43.5]),
  region("KS", "Kansas", "state", [-102.05, 36.99, -94.59, 40.0]),
  region("KY", "Kentucky", "state", [-89.57, 36.5, -81.96, 39.15]),
  region("LA", "Louisiana", "state", [-94.04, 28.93, -88.82, 33.02]),
  region("ME", "Maine", "state", [-71.08, 42.98, -66.95, 47.46]),
  region("MD", "Maryland", "state", [-79.49, 37.91, -75.05, 39.72]),
  region("MA", "Massachusetts", "state", [-73.51, 41.24, -69.93, 42.89]),
  region("MI", "Michigan", "state", [-90.42, 41.7, -82.41, 48.31]),
  region("MN", "Minnesota", "state", [-97.24, 43.5, -89.49, 49.38]),
  region("MS", "Mississippi", "state", [-91.66, 30.17, -88.1, 35.0]),
  region("MO", "Missouri", "state", [-95.77, 35.99, -89.1, 40.61]),
  region("MT", "Montana", "state", [-116.05, 44.36, -104.04, 49.0]),
  region("NE", "Nebraska", "state", [-104.05, 40.0, -95.31, 43.0]),
  region("NV", "Nevada", "state", [-120.01, 35.0, -114.04, 42.0]),
  region("NH", "New Hampshire", "state", [-72.56, 42.7, -70.61, 45.31]),
  region("NJ", "New Jersey", "state", [-75.56, 38.93, -73.89, 41.36]),
  region("NM", "New Mexico", "state", [-109.05, 31.33, -103.0, 37.0]),
  region("NY", "New York", "state", [-79.76, 40.5, -71.86, 45.02]),
  region("NC", "North Carolina", "state", [-84.32, 33.84, -75.46, 36.59]),
  region("ND", "North Dakota", "state", [-104.05, 45.94, -96.55, 49.0]),
  region("OH", "Ohio", "state", [-84.82, 38.4, -80.52, 41.98]),
  region("OK", "Oklahoma", "state", [-103.0, 33.62, -94.43, 37.0]),
  region("OR", "Oregon", "state", [-124.57, 41.99, -116.46, 46.29]),
  region("PA", "Pennsylvania", "state", [-80.52, 39.72, -74.69, 42.27]),
  region("RI", "Rhode Island", "state", [-71.91, 41.15, -71.12, 42.02]),
  region("SC", "South Carolina", "state", [-83.35, 32.03, -78.54, 35.22]),
  region("SD", "South Dakota", "state", [-104.06, 42.48, -96.44, 45.95]),
  region("TN", "Tennessee", "state", [-90.31, 34.98, -81.65, 36.68]),
  region("TX", "Texas", "state", [-106.65, 25.84, -93.51, 36.5]),
  region("UT", "Utah", "state", [-114.05, 37.0, -109.04, 42.0]),
  region("VT", "Vermont", "state", [-73.44, 42.73, -71.46, 45.02]),
  region("VA", "Virginia", "state", [-83.68, 36.54, -75.24, 39.47]),
  region("WA", "Washington", "state", [-124.85, 45.54, -116.92, 49.0]),
  region("WV", "West Virginia", "state", [-82.64, 37.2, -77.72, 40.64]),
  region("WI", "Wisconsin", "state", [-92.89, 42.49, -86.25, 47.31]),
  region("WY", "Wyoming", "state", [-111.06, 40.99, -104.05, 45.01]),
  region("PR", "Puerto Rico", "territory", [-67.95, 17.88, -65.22, 18.52]),
  region("VI", "U.S. Virgin Islands", "territory", [-65.09, 17.67, -64.56, 18.42]),
  region("GU", "Guam", "territory", [144.62, 13.23, 144.96, 13.65]),
  region("MP", "Northern Mariana Islands", "territory", [144.89, 14.11, 145.87, 20.56]),
  region("AS", "American Samoa", "territory", [-171.09, -14.6, -168.14, -11.04]),
];

/** The regions whose box holds the point (several near borders). */
export function regionsAt(lat: number, lon: number): Region[] {
  return REGIONS.filter((r) => r.boxes.some(([w, s, e, n]) => lon >= w && lon <= e && lat >= s && lat <= n));
}

function fold(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[.\s]+/g, " ")
    .trim();
}

const BY_NAME = new Map<string, Region>();
for (const r of REGIONS) BY_NAME.set(fold(r.name), r);
// Common spellings of the same places.
const ALIASES: Record<string, string> = {
  "washington dc": "DC",
  "washington d c": "DC",
  "us virgin islands": "VI",
  "u s virgin islands": "VI",
  "virgin islands": "VI",
  "northern mariana islands": "MP",
  "commonwealth of the northern mariana islands": "MP",
};
for (const [alias, code] of Object.entries(ALIASES)) {
  const r = REGIONS.find((x) => x.code === code);
  if (r) BY_NAME.set(alias, r);
}

export function regionByName(name: string): Region | undefined {
  return BY_NAME.get(fold(name));
}

export function regionByCode(code: string): Region | undefined {
  return REGIONS.find((r) => r.code === code.toUpperCase());
}
