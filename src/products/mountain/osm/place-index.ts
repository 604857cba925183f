// An in-memory spatial index of points: nearest first by great-circle distance (kdbush + geokdbush).
import { around } from "geokdbush";
import KDBush from "kdbush";
import { distanceKm, EARTH_RADIUS_KM } from "../shared/geo.ts";

export interface Hit<T> {
  item: T;
  distanceKm: number;
}

export interface NearOptions<T> {
  /** Only items strictly farther than this (for rings such as 1–15 km). */
  beyondKm?: number;
  limit?: number;
  filter?: (item: T) => boolean;
}

const DEG = 180 / Math.PI;

/** Longitude/latitude boxes that hold every point within radiusKm of (lat, lon), split at the antimeridian. */
function boxesAround(lat: number, lon: number, radiusKm: number): Array<[number, number, number, number]> {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const dLat = angle * DEG * 1.0001 + 1e-9;
  const south = lat - dLat;
  const north = lat + dLat;
  const sinAngle = Math.sin(angle);
  const cosLat = Math.cos(lat / DEG);
  if (north >= 90 || south <= -90 || sinAngle >= cosLat)
    return [[-180, Math.max(south, -90), 180, Math.min(north, 90)]];
  const dLon = Math.asin(sinAngle / cosLat) * DEG * 1.0001 + 1e-9;
  const west = lon - dLon;
  const east = lon + dLon;
  if (west < -180)
    return [
      [west + 360, south, 180, north],
      [-180, south, east, north],
    ];
  if (east > 180)
    return [
      [west, south, 180, north],
      [-180, south, east - 360, north],
    ];
  return [[west, south, east, north]];
}

export class PlaceIndex<T extends { lat: number; lon: number }> {
  readonly items: readonly T[];
  private readonly index: KDBush | undefined;

  constructor(items: readonly T[]) {
    this.items = items;
    if (items.length === 0) return;
    const index = new KDBush(items.length, 64, Float64Array);
    for (const item of items) index.add(item.lon, item.lat);
    this.index = index.finish();
  }

  /** Bytes held by the index itself (coordinates and ids), not by the items. */
  get byteLength(): number {
    return this.index?.data.byteLength ?? 0;
  }

  /**
   * How many items lie within radiusKm (and beyond beyondKm): a box search, then a flat-earth distance that is
   * exact enough away from the two circles (within 1%) and the great-circle distance only near them.
   */
  private count(
    lat: number,
    lon: number,
    radiusKm: number,
    beyondKm: number,
    filter?: (item: T) => boolean,
  ): number {
    const flat = radiusKm <= 20 && Math.abs(lat) <= 70;
    const kmPerDeg = EARTH_RADIUS_KM / DEG;
    const kmPerDegLon = kmPerDeg * Math.cos(lat / DEG);
    const [outerIn, outerOut] = [(radiusKm * 0.99) ** 2, (radiusKm * 1.01) ** 2];
    const [innerIn, innerOut] = beyondKm < 0 ? [-1, -1] : [(beyondKm * 0.99) ** 2, (beyondKm * 1.01) ** 2];
    let total = 0;
    for (const [west, south, east, north] of boxesAround(lat, lon, radiusKm)) {
      for (const id of this.index!.range(west, south, east, north)) {
        const item = this.items[id]!;
        if (filter && !filter(item)) continue;
        if (flat) {
          let dLon = item.lon - lon;
          if (dLon > 180) dLon -= 360;
          else if (dLon < -180) dLon += 360;
          const dx = dLon * kmPerDegLon;
          const dy = (item.lat - lat) * kmPerDeg;
          const squared = dx * dx + dy * dy;
          if (squared > outerOut || squared < innerIn) continue;
          if (squared < outerIn && squared > innerOut) {
            total++;
            continue;
          }
        }
        const d = distanceKm(lat, lon, item.lat, item.lon);
        if (d <= radiusKm && d > beyondKm) total++;
      }
    }
    return total;
  }

  /** Items within radiusKm of (lat, lon), nearest first: `total` counts them all, `hits` stops at `limit`. */
  near(
    lat: number,
    lon: number,
    radiusKm: number,
    options: NearOptions<T> = {},
  ): { total: number; hits: Hit<T>[] } {
    if (!this.index) return { total: 0, hits: [] };
    const { beyondKm, limit = Number.POSITIVE_INFINITY, filter } = options;
    const predicate = filter ? (id: number) => filter(this.items[id]!) : undefined;
    const inner = beyondKm === undefined ? 0 : this.count(lat, lon, beyondKm, -1, filter);
    // The nearest (inner + limit) items include the first `limit` beyond the inner circle.
    const ids = around(this.index, lon, lat, inner + limit, radiusKm, predicate);
    const hits: Hit<T>[] = [];
    for (const id of ids) {
      const item = this.items[id]!;
      const d = distanceKm(lat, lon, item.lat, item.lon);
      if (d > radiusKm || (beyondKm !== undefined && d <= beyondKm)) continue;
      if (hits.length < limit) hits.push({ item, distanceKm: d });
    }
    const total =
      ids.length < inner + limit ? hits.length : this.count(lat, lon, radiusKm, beyondKm ?? -1, filter);
    return { total, hits };
  }
}
