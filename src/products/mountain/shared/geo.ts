// Great-circle geometry on a sphere of radius 6371 km, the same model geokdbush searches with.
import { distance } from "geokdbush";

export const EARTH_RADIUS_KM = 6371;
const RAD = Math.PI / 180;

/** Great-circle distance in km between two points given as latitude/longitude degrees. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return distance(lon1, lat1, lon2, lat2);
}

/** The point `km` away from (lat, lon) along the initial bearing `bearingDeg` (0 = north, 90 = east). */
export function destinationPoint(
  lat: number,
  lon: number,
  bearingDeg: number,
  km: number,
): { lat: number; lon: number } {
  const d = km / EARTH_RADIUS_KM;
  const b = bearingDeg * RAD;
  const φ1 = lat * RAD;
  const λ1 = lon * RAD;
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(b));
  const λ2 =
    λ1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
  return { lat: φ2 / RAD, lon: ((((λ2 / RAD + 540) % 360) + 360) % 360) - 180 };
}

/** Distances shown to buyers: metres precision. */
export function roundKm(km: number): number {
  return Math.round(km * 1000) / 1000;
}

export interface LatLon {
  lat: number;
  lon: number;
}

/**
 * Distance from a point to a route segment and how far along the segment its nearest point lies, on a local
 * equirectangular projection (accurate to well under 1% for segments of a few tens of km).
 */
export function distanceToSegmentKm(
  p: LatLon,
  a: LatLon,
  b: LatLon,
): { distanceKm: number; alongKm: number; segmentKm: number } {
  const cos = Math.cos(((a.lat + b.lat) / 2) * RAD);
  const kmPerDeg = EARTH_RADIUS_KM * RAD;
  const bx = (b.lon - a.lon) * cos * kmPerDeg;
  const by = (b.lat - a.lat) * kmPerDeg;
  const px = (p.lon - a.lon) * cos * kmPerDeg;
  const py = (p.lat - a.lat) * kmPerDeg;
  const lengthSq = bx * bx + by * by;
  const t = lengthSq === 0 ? 0 : Math.max(0, Math.min(1, (px * bx + py * by) / lengthSq));
  const segmentKm = Math.sqrt(lengthSq);
  return { distanceKm: Math.hypot(px - t * bx, py - t * by), alongKm: t * segmentKm, segmentKm };
}
