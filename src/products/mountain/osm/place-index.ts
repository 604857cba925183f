// An in-memory spatial index of points: nearest first by great-circle distance (kdbush + geokdbush).
import { around } from "geokdbush";
import KDBush from "kdbush";
import { distanceKm, EARTH_RADIUS_KM } from "../shared/geo.ts";

export interface Hit<T> {
  item: T;
  distanceKm: number;
}

interface NearOptions<T> {
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

/** Where the index reads its points: coordinates by position, and the item at a position when one is wanted. */
interface PointSource<T> {
  readonly size: number;
  readonly lat: ArrayLike<number>;
  readonly lon: ArrayLike<number>;
  at(i: number): T;
}

function arraySource<T extends { lat: number; lon: number }>(items: readonly T[]): PointSource<T> {
  return {
    size: items.length,
    lat: Float64Array.from(items, (item) => item.lat),
    lon: Float64Array.from(items, (item) => item.lon),
    at: (i) => items[i] as T,
  };
}

export class PlaceIndex<T extends { lat: number; lon: number }> {
  private readonly source: PointSource<T>;
  private readonly index: KDBush | undefined;

  constructor(items: readonly T[] | PointSource<T>) {
    const source = Array.isArray(items) ? arraySource(items) : (items as PointSource<T>);
    this.source = source;
    if (source.size === 0) return;
    const index = new KDBush(source.size, 64, Float64Array);
    for (let i = 0; i < source.size; i++) index.add(source.lon[i] as number, source.lat[i] as number);
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
        if (filter && !filter(this.source.at(id))) continue;
        const itemLat = this.source.lat[id] as number;
        const itemLon = this.source.lon[id] as number;
        if (flat) {
          let dLon = itemLon - lon;
          if (dLon > 180) dLon -= 360;
          else if (dLon < -180) dLon += 360;
          const dx = dLon * kmPerDegLon;
          const dy = (itemLat - lat) * kmPerDeg;
          const squared = dx * dx + dy * dy;
          if (squared > outerOut || squared < innerIn) continue;
          if (squared < outerIn && squared > innerOut) {
            total++;
            continue;
          }
        }
        const d = distanceKm(lat, lon, itemLat, itemLon);
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
    const predicate = filter ? (id: number) => filter(this.source.at(id)) : undefined;
    const inner = beyondKm === undefined ? 0 : this.count(lat, lon, beyondKm, -1, filter);
    // The nearest (inner + limit) items include the first `limit` beyond the inner circle.
    const ids = around(this.index, lon, lat, inner + limit, radiusKm, predicate);
    const hits: Hit<T>[] = [];
    for (const id of ids) {
      const d = distanceKm(lat, lon, this.source.lat[id] as number, this.source.lon[id] as number);
      if (d > radiusKm || (beyondKm !== undefined && d <= beyondKm)) continue;
      if (hits.length < limit) hits.push({ item: this.source.at(id), distanceKm: d });
    }
    const total =
      ids.length < inner + limit ? hits.length : this.count(lat, lon, radiusKm, beyondKm ?? -1, filter);
    return { total, hits };
  }
}
