// The curated record kinds `paycall ingest <kind> <file>` imports: their fields (one schema for JSON and CSV),
// how a record becomes a table row, and the checks that need the database or the other rows.
import { z } from "zod";
import { defaultCurrency } from "./currencies.ts";
import {
  bandDates,
  country,
  currency,
  date,
  latitude,
  list,
  longitude,
  number,
  optionalCurrency,
  optionalDate,
  optionalSlug,
  optionalText,
  optionalUrl,
  routePath,
  sampleFlag,
  slug,
  text,
  token,
  url,
} from "./fields.ts";
import type { MountainDb, MountainKysely } from "./schema.ts";

export const RESTAURANT_ID = /^osm-(?:node|way|relation)-\d{1,15}$/;

const restaurantId = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be text") })
  .trim()
  .regex(RESTAURANT_ID, { error: "must be an OSM restaurant id such as osm-node-123456" });

const ARRIVAL_KINDS = ["ticket_office", "main_lift"] as const;
const MENU_SOURCE_KINDS = ["website", "delivery_app"] as const;
/** The widest bbox an area may have, in degrees per side: one polite Overpass query per area. */
const MAX_AREA_SPAN_DEG = 2;

const AreaRecord = z
  .strictObject({
    id: slug,
    name: text(),
    country,
    region: text(100),
    currency: optionalCurrency,
    south: latitude,
    west: longitude,
    north: latitude,
    east: longitude,
    sample: sampleFlag,
  })
  .superRefine((r, ctx) => {
    if (r.south >= r.north) ctx.addIssue({ code: "custom", path: ["north"], message: "must be above south" });
    if (r.west >= r.east)
      ctx.addIssue({
        code: "custom",
        path: ["east"],
        message: "must be east of west (no antimeridian boxes)",
      });
    if (r.north - r.south > MAX_AREA_SPAN_DEG || r.east - r.west > MAX_AREA_SPAN_DEG)
      ctx.addIssue({
        code: "custom",
        path: ["north"],
        message: `the box spans more than ${MAX_AREA_SPAN_DEG} degrees; split it into smaller areas`,
      });
    if (!r.currency && !defaultCurrency(r.country))
      ctx.addIssue({ code: "custom", path: ["currency"], message: `is required for country ${r.country}` });
  });

const ResortRecord = z
  .strictObject({
    id: slug,
    name: text(),
    country,
    region: text(100),
    state: z.preprocess(
      (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
      z
        .string({ error: "must be text" })
        .trim()
        .regex(/^[A-Z]{2}$/, { error: "must be a two-letter upper-case US state code, e.g. CO" })
        .optional(),
    ),
    area: optionalSlug,
    operator: text(),
    officialSite: url,
    officialBookingUrl: url,
    priceListUrl: url,
    currency,
    lat: latitude,
    lon: longitude,
    location: z.enum(ARRIVAL_KINDS, { error: `must be one of ${ARRIVAL_KINDS.join(", ")}` }),
    locationName: text(),
    sample: sampleFlag,
  })
  .superRefine((r, ctx) => {
    if (r.country === "us" && !r.state)
      ctx.addIssue({ code: "custom", path: ["state"], message: "is required for US resorts" });
    if (r.country !== "us" && r.state)
      ctx.addIssue({ code: "custom", path: ["state"], message: "is for US resorts only; leave it empty" });
  });

const TicketPriceRecord = z.strictObject({
  id: slug,
  resort: slug,
  season: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z
      .string({ error: (i) => (i.input === undefined ? "is required" : "must be text") })
      .trim()
      .regex(/^\d{4}\/\d{2}$/, { error: "must be a season such as 2025/26" })
      .refine((s) => (Number(s.slice(0, 4)) + 1) % 100 === Number(s.slice(5)), {
        error: "must be two consecutive years, e.g. 2025/26",
      }),
  ),
  seasonBand: token,
  bandDates,
  ticketType: token,
  ageBand: token,
  ageRange: optionalText(40),
  price: number(0, 1_000_000),
  currency,
  sourceUrl: url,
  collectedAt: date,
  sample: sampleFlag,
});

const MenuRecord = z
  .strictObject({
    id: restaurantId,
    mealPeriods: list(token).pipe(
      z.array(z.string()).min(1, { error: "must name at least one meal period" }),
    ),
    sourceKind: z.enum(MENU_SOURCE_KINDS, { error: `must be one of ${MENU_SOURCE_KINDS.join(", ")}` }),
    sourceApp: optionalText(100),
    sourceUrl: url,
    menuType: token,
    menuDate: date,
    collectedAt: date,
    currency,
    sample: sampleFlag,
  })
  .superRefine((r, ctx) => {
    if (r.sourceKind === "delivery_app" && !r.sourceApp)
      ctx.addIssue({
        code: "custom",
        path: ["sourceApp"],
        message: "is required when sourceKind is delivery_app",
      });
    if (r.sourceKind === "website" && r.sourceApp)
      ctx.addIssue({
        code: "custom",
        path: ["sourceApp"],
        message: "names a delivery app; leave it empty for website menus",
      });
  });

const MenuItemRecord = z.strictObject({
  id: slug,
  menu: restaurantId,
  position: z.preprocess(
    (v) =>
      typeof v === "string" ? (v.trim() === "" ? undefined : /^\d+$/.test(v.trim()) ? Number(v) : v) : v,
    z.number({ error: "must be a whole number" }).int({ error: "must be a whole number" }).min(0).optional(),
  ),
  name: text(),
  price: number(0, 1_000_000),
  currency: optionalCurrency,
  category: optionalText(100),
  portion: optionalText(100),
  sample: sampleFlag,
});

const CorridorRecord = z.strictObject({
  id: slug,
  name: text(),
  country,
  region: text(100),
  description: optionalText(2000),
  path: routePath,
  bufferKm: z.preprocess((v) => (v === undefined || v === "" ? 2 : v), number(0.1, 10)),
  resorts: z.preprocess((v) => (v === undefined ? [] : v), list(slug)),
  sample: sampleFlag,
});

const InsiderTipRecord = z
  .strictObject({
    id: slug,
    resort: optionalSlug,
    country,
    date,
    validUntil: optionalDate,
    language: z.preprocess(
      (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
      z
        .string({ error: (i) => (i.input === undefined ? "is required" : "must be text") })
        .trim()
        .regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, {
          error: "must be a language tag such as de, fr or en-US",
        }),
    ),
    kind: token,
    title: optionalText(200),
    text: text(5000),
    sourceUrl: optionalUrl,
    sample: sampleFlag,
  })
  .superRefine((r, ctx) => {
    if (r.validUntil && r.validUntil < r.date)
      ctx.addIssue({ code: "custom", path: ["validUntil"], message: "must not be before date" });
  });

/** A problem found across rows: the index of the file row it concerns, the field and the problem. */
export interface RowProblem {
  index: number;
  field: string;
  problem: string;
}

interface KindSpec<R> {
  table: keyof MountainDb;
  schema: z.ZodType<R>;
  toRow: (record: R, updatedAt: string) => Record<string, unknown>;
  /** Checks against the database (inside the import's transaction) and across the file's rows. */
  crossCheck?: (records: R[], db: MountainKysely) => Promise<RowProblem[]>;
  /** Runs after the upserts, in the same transaction. */
  afterUpsert?: (records: R[], db: MountainKysely) => Promise<void>;
}

async function existingIds(
  db: MountainKysely,
  table: "mountain_resorts" | "mountain_areas" | "mountain_menus",
  ids: string[],
) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, { country: string }>();
  const found = new Map<string, { country: string }>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    if (table === "mountain_menus") {
      const rows = await db.selectFrom("mountain_menus").select("id").where("id", "in", chunk).execute();
      for (const row of rows) found.set(row.id, { country: "" });
    } else {
      const rows = await db.selectFrom(table).select(["id", "country"]).where("id", "in", chunk).execute();
      for (const row of rows) found.set(row.id, { country: row.country });
    }
  }
  return found;
}

/**
 * Each record's reference to an area or resort must name one already imported, in the record's own country.
 * `field` is the field a country mismatch is reported on.
 */
async function referencesInSameCountry<R extends { country: string }>(
  db: MountainKysely,
  records: R[],
  target: {
    table: "mountain_areas" | "mountain_resorts";
    noun: string;
    ref: (r: R) => string | null | undefined;
    field: string;
  },
): Promise<RowProblem[]> {
  const found = await existingIds(
    db,
    target.table,
    records.flatMap((r) => target.ref(r) ?? []),
  );
  const problems: RowProblem[] = [];
  records.forEach((r, index) => {
    const id = target.ref(r);
    if (!id) return;
    const other = found.get(id);
    if (!other)
      problems.push({
        index,
        field: target.noun,
        problem: `unknown ${target.noun} "${id}"; import it first`,
      });
    else if (other.country !== r.country)
      problems.push({
        index,
        field: target.field,
        problem: `${target.noun} "${id}" is in ${other.country}, not ${r.country}`,
      });
  });
  return problems;
}

type AreaInput = z.output<typeof AreaRecord>;
type ResortInput = z.output<typeof ResortRecord>;
type TicketPriceInput = z.output<typeof TicketPriceRecord>;
type MenuInput = z.output<typeof MenuRecord>;
type MenuItemInput = z.output<typeof MenuItemRecord>;
type CorridorInput = z.output<typeof CorridorRecord>;
type InsiderTipInput = z.output<typeof InsiderTipRecord>;

const flag = (sample: boolean) => (sample ? 1 : 0);

const areas: KindSpec<AreaInput> = {
  table: "mountain_areas",
  schema: AreaRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    name: r.name,
    country: r.country,
    region: r.region,
    currency: r.currency ?? defaultCurrency(r.country),
    south: r.south,
    west: r.west,
    north: r.north,
    east: r.east,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
};

const resorts: KindSpec<ResortInput> = {
  table: "mountain_resorts",
  schema: ResortRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    name: r.name,
    country: r.country,
    region: r.region,
    state: r.state ?? null,
    area: r.area ?? null,
    operator: r.operator,
    official_site: r.officialSite,
    booking_url: r.officialBookingUrl,
    price_list_url: r.priceListUrl,
    currency: r.currency,
    lat: r.lat,
    lon: r.lon,
    location: r.location,
    location_name: r.locationName,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
  crossCheck: (records, db) =>
    referencesInSameCountry(db, records, {
      table: "mountain_areas",
      noun: "area",
      ref: (r) => r.area,
      field: "area",
    }),
};

function rangesOverlap(
  a: Array<{ from: string; to: string }>,
  b: Array<{ from: string; to: string }>,
): boolean {
  return a.some((x) => b.some((y) => x.from <= y.to && y.from <= x.to));
}

type Dates = Array<{ from: string; to: string }>;
/** One price row of the set after an import; `index` is its row in the file, null for a stored row. */
type MergedPrice = {
  resort: string;
  season: string;
  band: string;
  type: string;
  age: string;
  dates: Dates;
  index: number | null;
};
type BandDates = { resort: string; season: string; band: string; dates: Dates; index: number | null };

/** The price set after this import: stored rows of these resorts, overlaid by the file's rows. */
async function priceSetAfterImport(
  records: TicketPriceInput[],
  db: MountainKysely,
  resortIds: string[],
): Promise<Map<string, MergedPrice>> {
  const merged = new Map<string, MergedPrice>();
  for (let i = 0; i < resortIds.length; i += 500) {
    const stored = await db
      .selectFrom("mountain_ticket_prices")
      .selectAll()
      .where("resort_id", "in", resortIds.slice(i, i + 500))
      .execute();
    for (const row of stored)
      merged.set(row.id, {
        resort: row.resort_id,
        season: row.season,
        band: row.season_band,
        type: row.ticket_type,
        age: row.age_band,
        dates: JSON.parse(row.band_dates) as Dates,
        index: null,
      });
  }
  records.forEach((r, index) => {
    merged.delete(r.id);
    merged.set(r.id, {
      resort: r.resort,
      season: r.season,
      band: r.seasonBand,
      type: r.ticketType,
      age: r.ageBand,
      dates: r.bandDates,
      index,
    });
  });
  return merged;
}

function groupPrices(merged: Map<string, MergedPrice>, key: (row: MergedPrice) => string) {
  const groups = new Map<string, MergedPrice[]>();
  for (const row of merged.values()) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}

const sameDates = (a: Dates, b: Dates) => JSON.stringify(a) === JSON.stringify(b);

/** Every row of one season band gives the same dates; the file's first row of the band sets them. */
function seasonBandDates(merged: Map<string, MergedPrice>): {
  byBand: Map<string, BandDates>;
  problems: RowProblem[];
} {
  const problems: RowProblem[] = [];
  const byBand = new Map<string, BandDates>();
  for (const [key, rows] of groupPrices(merged, (r) => `${r.resort}|${r.season}|${r.band}`)) {
    const fromFile = rows.filter((r) => r.index !== null);
    const reference = (fromFile[0] ?? rows[0])!;
    byBand.set(key, {
      resort: reference.resort,
      season: reference.season,
      band: reference.band,
      dates: reference.dates,
      index: reference.index,
    });
    for (const row of fromFile.slice(1))
      if (!sameDates(row.dates, reference.dates))
        problems.push({
          index: row.index!,
          field: "bandDates",
          problem: `differs from the dates other rows give season band "${row.band}" of ${row.resort} ${row.season}`,
        });
    if (fromFile.length > 0 && rows.some((r) => r.index === null && !sameDates(r.dates, reference.dates)))
      problems.push({
        index: reference.index!,
        field: "bandDates",
        problem: `stored rows of season band "${reference.band}" of ${reference.resort} ${reference.season} have other dates; re-import them (same ids) with these dates`,
      });
  }
  return { byBand, problems };
}

/** One price per resort, season, band, ticket type and age band. */
function duplicatePrices(merged: Map<string, MergedPrice>): RowProblem[] {
  const problems: RowProblem[] = [];
  for (const rows of groupPrices(
    merged,
    (r) => `${r.resort}|${r.season}|${r.band}|${r.type}|${r.age}`,
  ).values()) {
    for (const row of rows.slice(1).filter((r) => r.index !== null))
      problems.push({
        index: row.index!,
        field: "id",
        problem: `another row already prices ${row.resort} ${row.season} ${row.band} ${row.type} ${row.age}; use its id to replace it`,
      });
  }
  return problems;
}

/** A date selects one band: the bands of one resort and season must not overlap. */
function overlappingBands(bands: Iterable<BandDates>): RowProblem[] {
  const problems: RowProblem[] = [];
  const bandsBySeason = new Map<string, BandDates[]>();
  for (const b of bands) {
    const key = `${b.resort} ${b.season}`;
    bandsBySeason.set(key, [...(bandsBySeason.get(key) ?? []), b]);
  }
  for (const [season, list] of bandsBySeason)
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!;
        const b = list[j]!;
        const index = b.index ?? a.index;
        if (index === null || !rangesOverlap(a.dates, b.dates)) continue;
        problems.push({
          index,
          field: "bandDates",
          problem: `season bands "${a.band}" and "${b.band}" of ${season} overlap; a date must select one band`,
        });
      }
  return problems;
}

const ticketPrices: KindSpec<TicketPriceInput> = {
  table: "mountain_ticket_prices",
  schema: TicketPriceRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    resort_id: r.resort,
    season: r.season,
    season_band: r.seasonBand,
    band_dates: JSON.stringify(r.bandDates),
    ticket_type: r.ticketType,
    age_band: r.ageBand,
    age_range: r.ageRange ?? null,
    price: r.price,
    currency: r.currency,
    source_url: r.sourceUrl,
    collected_at: r.collectedAt,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
  async crossCheck(records, db) {
    const resortIds = [...new Set(records.map((r) => r.resort))];
    const found = await existingIds(db, "mountain_resorts", resortIds);
    const problems: RowProblem[] = [];
    records.forEach((r, index) => {
      if (!found.has(r.resort))
        problems.push({ index, field: "resort", problem: `unknown resort "${r.resort}"; import it first` });
    });
    const merged = await priceSetAfterImport(records, db, resortIds);
    const bands = seasonBandDates(merged);
    return [
      ...problems,
      ...bands.problems,
      ...duplicatePrices(merged),
      ...overlappingBands(bands.byBand.values()),
    ];
  },
};

const menus: KindSpec<MenuInput> = {
  table: "mountain_menus",
  schema: MenuRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    meal_periods: JSON.stringify(r.mealPeriods),
    source_kind: r.sourceKind,
    source_app: r.sourceApp ?? null,
    source_url: r.sourceUrl,
    menu_type: r.menuType,
    menu_date: r.menuDate,
    collected_at: r.collectedAt,
    currency: r.currency,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
};

const menuItems: KindSpec<MenuItemInput & { currency?: string }> = {
  table: "mountain_menu_items",
  schema: MenuItemRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    menu_id: r.menu,
    position: r.position ?? 0,
    name: r.name,
    price: r.price,
    currency: r.currency ?? "",
    category: r.category ?? null,
    portion: r.portion ?? null,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
  async crossCheck(records, db) {
    const found = await existingIds(
      db,
      "mountain_menus",
      records.map((r) => r.menu),
    );
    const problems: RowProblem[] = [];
    const currencies = new Map<string, string>();
    const menuIds = [...found.keys()];
    for (let i = 0; i < menuIds.length; i += 500) {
      const rows = await db
        .selectFrom("mountain_menus")
        .select(["id", "currency"])
        .where("id", "in", menuIds.slice(i, i + 500))
        .execute();
      for (const row of rows) currencies.set(row.id, row.currency);
    }
    records.forEach((r, index) => {
      if (!found.has(r.menu)) {
        problems.push({
          index,
          field: "menu",
          problem: `unknown menu "${r.menu}"; import the menus file first`,
        });
        return;
      }
      // Items without a currency or position take the menu's currency and their order in the file.
      r.currency ??= currencies.get(r.menu);
      r.position ??= index;
    });
    return problems;
  },
  // The file holds the whole menu of every restaurant it mentions: their other items are removed.
  async afterUpsert(records, db) {
    const byMenu = new Map<string, string[]>();
    for (const r of records) byMenu.set(r.menu, [...(byMenu.get(r.menu) ?? []), r.id]);
    for (const [menu, ids] of byMenu) {
      await db
        .deleteFrom("mountain_menu_items")
        .where("menu_id", "=", menu)
        .where("id", "not in", ids)
        .execute();
    }
  },
};

const corridors: KindSpec<CorridorInput> = {
  table: "mountain_corridors",
  schema: CorridorRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    name: r.name,
    country: r.country,
    region: r.region,
    description: r.description ?? null,
    path: JSON.stringify(r.path),
    buffer_km: r.bufferKm,
    resorts: JSON.stringify(r.resorts),
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
  async crossCheck(records, db) {
    const found = await existingIds(
      db,
      "mountain_resorts",
      records.flatMap((r) => r.resorts),
    );
    const problems: RowProblem[] = [];
    records.forEach((r, index) => {
      for (const resort of r.resorts)
        if (!found.has(resort))
          problems.push({ index, field: "resorts", problem: `unknown resort "${resort}"; import it first` });
    });
    return problems;
  },
};

const insiderTips: KindSpec<InsiderTipInput> = {
  table: "mountain_insider_tips",
  schema: InsiderTipRecord,
  toRow: (r, updatedAt) => ({
    id: r.id,
    resort_id: r.resort ?? null,
    country: r.country,
    date: r.date,
    valid_until: r.validUntil ?? null,
    language: r.language,
    kind: r.kind,
    title: r.title ?? null,
    text: r.text,
    source_url: r.sourceUrl ?? null,
    sample: flag(r.sample),
    updated_at: updatedAt,
  }),
  crossCheck: (records, db) =>
    referencesInSameCountry(db, records, {
      table: "mountain_resorts",
      noun: "resort",
      ref: (r) => r.resort,
      field: "country",
    }),
};

// biome-ignore lint/suspicious/noExplicitAny: each kind has its own record type
export const KINDS: Record<string, KindSpec<any>> = {
  areas,
  resorts,
  "ticket-prices": ticketPrices,
  menus,
  "menu-items": menuItems,
  corridors,
  "insider-tips": insiderTips,
};

export const INGEST_KINDS = Object.keys(KINDS);

/** The fields a kind accepts (the CSV header names). */
export function fieldsOf(kind: string): string[] {
  const shape = (KINDS[kind]?.schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}
