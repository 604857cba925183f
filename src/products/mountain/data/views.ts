// Curated rows → the shapes answers carry, and the zod schemas describing them.
import { z } from "zod";
import type {
  CorridorTable,
  InsiderTipTable,
  MenuItemTable,
  MenuTable,
  ResortTable,
  TicketPriceTable,
} from "./schema.ts";

export const ResortBody = z.object({
  resortId: z.string(),
  name: z.string(),
  region: z.string(),
  state: z.string().nullable().describe("Two-letter state code, US resorts only"),
  operator: z.string(),
  officialSite: z.url(),
  officialBookingUrl: z.url(),
  priceListUrl: z.url(),
  currency: z.string().describe("ISO 4217 currency of the resort's prices"),
  lat: z.number().describe("Latitude of the arrival point"),
  lon: z.number().describe("Longitude of the arrival point"),
  location: z.enum(["ticket_office", "main_lift"]).describe("What the arrival point is"),
  locationName: z.string().describe("Name of the arrival point"),
  country: z.string(),
});

type ResortView = z.infer<typeof ResortBody>;

export function resortView(row: ResortTable): ResortView {
  return {
    resortId: row.id,
    name: row.name,
    region: row.region,
    state: row.state,
    operator: row.operator,
    officialSite: row.official_site,
    officialBookingUrl: row.booking_url,
    priceListUrl: row.price_list_url,
    currency: row.currency,
    lat: Number(row.lat),
    lon: Number(row.lon),
    location: row.location as ResortView["location"],
    locationName: row.location_name,
    country: row.country,
  };
}

export const DateRange = z.object({ from: z.iso.date(), to: z.iso.date() });

export const PriceBody = z.object({
  id: z.string(),
  season: z.string().describe("e.g. 2025/26"),
  seasonBand: z.string().describe("e.g. peak, regular, low"),
  bandDates: z.array(DateRange).describe("Inclusive date ranges of the season band"),
  ticketType: z.string().describe("e.g. 1-day, 6-day"),
  ageBand: z.string().describe("e.g. adult, youth, child, senior"),
  ageRange: z.string().nullable().describe("Ages the band covers, as the price list gives them"),
  price: z.number(),
  currency: z.string(),
  sourceUrl: z.url(),
  collectedAt: z.iso.date(),
});

export type PriceView = z.infer<typeof PriceBody>;

export function priceView(row: TicketPriceTable): PriceView {
  return {
    id: row.id,
    season: row.season,
    seasonBand: row.season_band,
    bandDates: JSON.parse(row.band_dates) as PriceView["bandDates"],
    ticketType: row.ticket_type,
    ageBand: row.age_band,
    ageRange: row.age_range,
    price: Number(row.price),
    currency: row.currency,
    sourceUrl: row.source_url,
    collectedAt: row.collected_at,
  };
}

/** Stable order: season, band start, ticket type, age band. */
export function comparePrices(a: PriceView, b: PriceView): number {
  const key = (p: PriceView) =>
    [p.season, p.bandDates[0]?.from ?? "", p.seasonBand, p.ticketType, p.ageBand].join("\u0000");
  const ka = key(a);
  const kb = key(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export const MenuSource = z.object({
  kind: z.enum(["website", "delivery_app"]).describe("The restaurant's own website, or a delivery app"),
  app: z.string().nullable().describe("The delivery app, when kind is delivery_app"),
  url: z.url(),
  menuType: z.string(),
  menuDate: z.iso.date(),
  collectedAt: z.iso.date(),
});

export const MenuItemBody = z.object({
  name: z.string(),
  price: z.number(),
  currency: z.string(),
  category: z.string().nullable(),
  portion: z.string().nullable(),
});

export function menuSourceView(row: MenuTable): z.infer<typeof MenuSource> {
  return {
    kind: row.source_kind as "website" | "delivery_app",
    app: row.source_app,
    url: row.source_url,
    menuType: row.menu_type,
    menuDate: row.menu_date,
    collectedAt: row.collected_at,
  };
}

export function menuItemView(row: MenuItemTable): z.infer<typeof MenuItemBody> {
  return {
    name: row.name,
    price: Number(row.price),
    currency: row.currency,
    category: row.category,
    portion: row.portion,
  };
}

export function compareItems(a: MenuItemTable, b: MenuItemTable): number {
  return Number(a.position) - Number(b.position) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export const TipBody = z.object({
  id: z.string(),
  resortId: z.string().nullable(),
  resortName: z.string().nullable(),
  country: z.string(),
  date: z.iso.date(),
  validUntil: z.iso.date().nullable(),
  language: z.string().describe("Language of the text (BCP 47), the local language"),
  kind: z.string().describe("e.g. early-opening, food, transport, crowds"),
  title: z.string().nullable(),
  text: z.string().describe("Plain text in the local language"),
  sourceUrl: z.string().nullable(),
});

export function tipView(row: InsiderTipTable, resortName: string | null): z.infer<typeof TipBody> {
  return {
    id: row.id,
    resortId: row.resort_id,
    resortName,
    country: row.country,
    date: row.date,
    validUntil: row.valid_until,
    language: row.language,
    kind: row.kind,
    title: row.title,
    text: row.text,
    sourceUrl: row.source_url,
  };
}

interface CorridorView {
  id: string;
  name: string;
  country: string;
  region: string;
  description: string | null;
  path: Array<[number, number]>;
  bufferKm: number;
  resorts: string[];
}

export function corridorView(row: CorridorTable): CorridorView {
  return {
    id: row.id,
    name: row.name,
    country: row.country,
    region: row.region,
    description: row.description,
    path: JSON.parse(row.path) as Array<[number, number]>,
    bufferKm: Number(row.buffer_km),
    resorts: JSON.parse(row.resorts) as string[],
  };
}

/** The newest of some ISO timestamps (null when there are none). */
export function newest(values: Iterable<string | null | undefined>): string | null {
  let latest: string | null = null;
  for (const v of values) if (v && (latest === null || v > latest)) latest = v;
  return latest;
}
