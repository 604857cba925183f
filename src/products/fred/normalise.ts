// FRED JSON → the fields this service keeps. Values stay strings exactly as FRED sends them ("." = missing).
import { z } from "zod";

interface FredSeriesMeta {
  seriesId: string;
  title: string;
  units: string;
  frequency: string;
  seasonalAdjustment: string;
  /** ISO 8601 UTC. */
  lastUpdated: string;
  observationStart: string;
  observationEnd: string;
  notes: string;
}

export interface FredObservation {
  date: string;
  value: string;
}

/** FRED's marker for a missing observation. */
export const MISSING_VALUE = ".";

const SeriesDocument = z.object({
  seriess: z
    .array(
      z.object({
        id: z.string().min(1),
        title: z.string(),
        units: z.string().optional().default(""),
        frequency: z.string().optional().default(""),
        seasonal_adjustment: z.string().optional().default(""),
        last_updated: z.string(),
        observation_start: z.string().optional().default(""),
        observation_end: z.string().optional().default(""),
        notes: z.string().optional().default(""),
      }),
    )
    .min(1),
});

const ObservationsDocument = z.object({
  observations: z.array(
    z.object({
      date: z.iso.date(),
      value: z.union([z.string(), z.number()]).transform(String),
    }),
  ),
});

const TagsDocument = z.object({
  tags: z.array(z.object({ name: z.string(), group_id: z.string().optional() })),
});

function shapeError(what: string, error: z.ZodError): Error {
  const issue = error.issues[0];
  return new Error(
    `FRED ${what} has an unexpected shape at ${issue?.path.join(".") || "top"}: ${issue?.message}`,
  );
}

/**
 * FRED's `last_updated` ("2026-03-27 07:57:03-05": an offset in hours without minutes, which Date.parse
 * does not accept) → ISO 8601 UTC.
 */
export function parseFredTimestamp(raw: string): string {
  const match = raw.trim().match(/^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})([+-])(\d{2}):?(\d{2})?$/);
  if (!match) throw new Error(`FRED timestamp "${raw}" is not YYYY-MM-DD HH:MM:SS±HH`);
  const [, date, time, sign, hours, minutes = "00"] = match;
  const ms = Date.parse(`${date}T${time}${sign}${hours}:${minutes}`);
  // Date.parse rolls 2026-02-31 over into March instead of failing.
  const day = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || Number.isNaN(day) || !new Date(day).toISOString().startsWith(date!))
    throw new Error(`FRED timestamp "${raw}" is not a valid date`);
  return new Date(ms).toISOString();
}

/** The `fred/series` answer → the series' metadata. */
export function normaliseSeriesMeta(json: unknown): FredSeriesMeta {
  const parsed = SeriesDocument.safeParse(json);
  if (!parsed.success) throw shapeError("series metadata", parsed.error);
  const s = parsed.data.seriess[0]!;
  return {
    seriesId: s.id,
    title: s.title,
    units: s.units,
    frequency: s.frequency,
    seasonalAdjustment: s.seasonal_adjustment,
    lastUpdated: parseFredTimestamp(s.last_updated),
    observationStart: s.observation_start,
    observationEnd: s.observation_end,
    notes: s.notes,
  };
}

/** The `fred/series/observations` answer → observations in date order, values as FRED's strings. */
export function normaliseObservations(json: unknown): FredObservation[] {
  const parsed = ObservationsDocument.safeParse(json);
  if (!parsed.success) throw shapeError("observations", parsed.error);
  return parsed.data.observations
    .map((o) => ({ date: o.date, value: o.value }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The `fred/series/tags` answer → tag names ("copyrighted: pre-approval required", "usa", ...). */
export function normaliseTagNames(json: unknown): string[] {
  const parsed = TagsDocument.safeParse(json);
  if (!parsed.success) throw shapeError("series tags", parsed.error);
  return parsed.data.tags.map((t) => t.name.trim().toLowerCase());
}

/** The most recent observation that has a value (FRED marks missing ones "."). */
export function latestObservation(observations: FredObservation[]): FredObservation | null {
  for (let i = observations.length - 1; i >= 0; i--) {
    const observation = observations[i]!;
    if (observation.value !== MISSING_VALUE) return observation;
  }
  return null;
}

const ReleaseDocument = z.object({
  releases: z.array(z.object({ id: z.number().int(), name: z.string(), link: z.string().optional() })).min(1),
});

const SourcesDocument = z.object({
  sources: z.array(z.object({ name: z.string().min(1), link: z.string().optional() })),
});

export interface FredOwner {
  name: string;
  /** The owner's web site as FRED lists it, or null. */
  link: string | null;
}

/** The `fred/series/release` answer → the release's id and name. */
export function normaliseSeriesRelease(json: unknown): { id: number; name: string } {
  const parsed = ReleaseDocument.safeParse(json);
  if (!parsed.success) throw shapeError("series release", parsed.error);
  const release = parsed.data.releases[0]!;
  return { id: release.id, name: release.name };
}

/** The `fred/release/sources` answer → the owners FRED names for the release. */
export function normaliseReleaseSources(json: unknown): FredOwner[] {
  const parsed = SourcesDocument.safeParse(json);
  if (!parsed.success) throw shapeError("release sources", parsed.error);
  return parsed.data.sources.map((s) => ({ name: s.name.trim(), link: s.link?.trim() || null }));
}
