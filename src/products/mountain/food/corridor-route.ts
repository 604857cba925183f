// Places along a route: within bufferKm of the polyline, ordered by how far along the route they lie. Pure.

import type { Hit, PlaceIndex } from "../osm/place-index.ts";
import { distanceKm, distanceToSegmentKm, type LatLon } from "../shared/geo.ts";

interface RouteHit<T> extends Hit<T> {
  /** Distance from the route's start to the point of the route nearest the place. */
  routeKm: number;
}

export function routeLengthKm(path: LatLon[]): number {
  let total = 0;
  for (let i = 1; i < path.length; i++)
    total += distanceKm(path[i - 1]!.lat, path[i - 1]!.lon, path[i]!.lat, path[i]!.lon);
  return total;
}

export function placesAlongRoute<T extends { id: string; lat: number; lon: number }>(
  index: PlaceIndex<T>,
  path: LatLon[],
  bufferKm: number,
): RouteHit<T>[] {
  const best = new Map<string, RouteHit<T>>();
  let startKm = 0;
  for (let i = 1; i < path.length; i++) {
    const a = path[i - 1]!;
    const b = path[i]!;
    const segmentKm = distanceKm(a.lat, a.lon, b.lat, b.lon);
    const mid = { lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2 };
    // Every point within bufferKm of the segment lies within this circle around its middle.
    const { hits } = index.near(mid.lat, mid.lon, segmentKm / 2 + bufferKm + 0.05);
    for (const { item } of hits) {
      const { distanceKm: off, alongKm } = distanceToSegmentKm(item, a, b);
      if (off > bufferKm) continue;
      const known = best.get(item.id);
      if (!known || off < known.distanceKm)
        best.set(item.id, { item, distanceKm: off, routeKm: startKm + alongKm });
    }
    startKm += segmentKm;
  }
  return [...best.values()].sort((x, y) => x.routeKm - y.routeKm || x.distanceKm - y.distanceKm);
}
