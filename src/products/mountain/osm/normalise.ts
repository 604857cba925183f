// Overpass elements → restaurant places with the spec's fields. Pure.
import { PLACE_TYPES, type PlaceType } from "../shared/params.ts";
import type { OverpassElement } from "./overpass.ts";

export interface Place {
  /** osm-node-<n>, osm-way-<n> or osm-relation-<n>. */
  id: string;
  name: string;
  type: PlaceType;
  cuisine: string[] | null;
  /** addr:* tags without the prefix (street, housenumber, postcode, city, …), or null. */
  address: Record<string, string> | null;
  lat: number;
  lon: number;
  hours: string | null;
  phone: string | null;
  website: string | null;
}

interface NormalisedPlaces {
  places: Place[];
  /** Elements left out: no name, no coordinates, or not one of the five place types. */
  skipped: number;
}

const OSM_TYPES = new Set(["node", "way", "relation"]);

function tag(tags: Record<string, string>, ...names: string[]): string | null {
  for (const name of names) {
    const value = tags[name]?.trim();
    if (value) return value;
  }
  return null;
}

export function osmUrl(placeId: string): string {
  const [, type, id] = placeId.match(/^osm-(node|way|relation)-(\d+)$/) ?? [];
  return `https://www.openstreetmap.org/${type}/${id}`;
}

export function normalisePlace(element: OverpassElement): Place | undefined {
  if (!OSM_TYPES.has(element.type) || !Number.isSafeInteger(element.id)) return undefined;
  const tags = element.tags ?? {};
  const type = tags.amenity?.trim() as PlaceType | undefined;
  if (!type || !PLACE_TYPES.includes(type)) return undefined;
  const name = tag(tags, "name");
  if (!name) return undefined;
  const lat = element.lat ?? element.center?.lat;
  const lon = element.lon ?? element.center?.lon;
  if (typeof lat !== "number" || typeof lon !== "number" || Math.abs(lat) > 90 || Math.abs(lon) > 180)
    return undefined;

  const cuisine = (tags.cuisine ?? "")
    .split(";")
    .map((c) => c.trim())
    .filter(Boolean);
  const address: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) {
    if (key.startsWith("addr:") && value.trim()) address[key.slice(5)] = value.trim();
  }
  return {
    id: `osm-${element.type}-${element.id}`,
    name,
    type,
    cuisine: cuisine.length > 0 ? cuisine : null,
    address: Object.keys(address).length > 0 ? address : null,
    lat,
    lon,
    hours: tag(tags, "opening_hours"),
    phone: tag(tags, "phone", "contact:phone"),
    website: tag(tags, "website", "contact:website", "url"),
  };
}

export function normaliseElements(elements: OverpassElement[]): NormalisedPlaces {
  const byId = new Map<string, Place>();
  let skipped = 0;
  for (const element of elements) {
    const place = normalisePlace(element);
    if (!place || byId.has(place.id)) skipped++;
    else byId.set(place.id, place);
  }
  return { places: [...byId.values()], skipped };
}
