// What the OSM warmer fetches: each area's bounding box and a 15 km ring around each resort's arrival point.
import type { AreaTable, MountainKysely, ResortTable } from "../data/schema.ts";
import { bboxQuery, ringQuery } from "./overpass.ts";

/** The outer edge of near-resort's `around` tier, and the ring fetched around every resort. */
export const RING_KM = 15;

export interface OsmTarget {
  /** area:<slug> or ring:<resortId>. */
  id: string;
  kind: "area" | "ring";
  ref: string;
  country: string;
  /** The area slug stamped on its places (a ring's places take the resort's area, or else the resort id). */
  area: string;
  currency: string;
  query: string;
}

function areaTarget(
  area: Pick<AreaTable, "id" | "country" | "currency" | "south" | "west" | "north" | "east">,
): OsmTarget {
  return {
    id: `area:${area.id}`,
    kind: "area",
    ref: area.id,
    country: area.country,
    area: area.id,
    currency: area.currency,
    query: bboxQuery(area),
  };
}

function ringTarget(
  resort: Pick<ResortTable, "id" | "country" | "currency" | "area" | "lat" | "lon">,
): OsmTarget {
  return {
    id: `ring:${resort.id}`,
    kind: "ring",
    ref: resort.id,
    country: resort.country,
    area: resort.area ?? resort.id,
    currency: resort.currency,
    query: ringQuery(resort.lat, resort.lon, RING_KM),
  };
}

export async function listTargets(db: MountainKysely): Promise<OsmTarget[]> {
  const [areas, resorts] = await Promise.all([
    db.selectFrom("mountain_areas").selectAll().execute(),
    db.selectFrom("mountain_resorts").selectAll().execute(),
  ]);
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [...areas.sort(byId).map(areaTarget), ...resorts.sort(byId).map(ringTarget)];
}
