// The restaurant fields every food answer shares, built from an indexed OSM place.
import { z } from "zod";
import { osmUrl } from "../osm/normalise.ts";
import type { PlaceDetails } from "../osm/place-table.ts";
import { roundKm } from "../shared/geo.ts";
import { PLACE_TYPES } from "../shared/params.ts";

export const Restaurant = z.object({
  restaurantId: z
    .string()
    .describe("osm-node-<n> (or osm-way-<n>, osm-relation-<n> for buildings mapped as outlines)"),
  name: z.string(),
  type: z.enum(PLACE_TYPES),
  cuisine: z.array(z.string()).optional().describe("OSM cuisine tag, split on ;"),
  address: z.record(z.string(), z.string()).nullable().describe("OSM addr:* tags without the prefix"),
  lat: z.number(),
  lon: z.number(),
  hours: z.string().optional().describe("OSM opening_hours syntax"),
  phone: z.string().optional(),
  website: z.string().optional(),
  currency: z.string().describe("ISO 4217 currency of the place's country or area"),
  menuItemCount: z.number().int().nonnegative(),
  osmUrl: z.url(),
  country: z.string().describe("Lower-case country code"),
  area: z.string().describe("Area slug"),
  distanceKm: z.number().optional().describe("Great-circle distance, only in proximity answers"),
});

type RestaurantBody = z.infer<typeof Restaurant>;

export function toRestaurant(place: PlaceDetails, distanceKm?: number): RestaurantBody {
  return {
    restaurantId: place.id,
    name: place.name,
    type: place.type,
    ...(place.cuisine ? { cuisine: place.cuisine } : {}),
    address: place.address,
    lat: place.lat,
    lon: place.lon,
    ...(place.hours ? { hours: place.hours } : {}),
    ...(place.phone ? { phone: place.phone } : {}),
    ...(place.website ? { website: place.website } : {}),
    currency: place.currency,
    menuItemCount: place.menuItemCount,
    osmUrl: osmUrl(place.id),
    country: place.country,
    area: place.area,
    ...(distanceKm === undefined ? {} : { distanceKm: roundKm(distanceKm) }),
  };
}
