// GET /v1/macro/fred/series: one FRED series' metadata and observations from the cache. A series not cached
// yet is queued for fetching (404 charged:false with retryAfterSec); a series whose owner forbids resale is
// refused before payment.
import { z } from "zod";
import {
  type ErrorOutcome,
  notCached,
  notFound,
  ok,
  product,
  upstreamUnavailable,
} from "../../catalog/product.ts";
import { errorOutcome } from "../../errors.ts";
import { readSeries, readSummaryRecent, SERIES_QUEUE, type SeriesSummary } from "./documents.ts";
import { latestObservation, MISSING_VALUE } from "./normalise.ts";
import { type FredSettings, SERIES_ID, SERIES_ID_MAX } from "./settings.ts";
import {
  canFetchFred,
  FRED_ENDORSEMENT,
  FRED_SOURCE,
  FRED_TERMS_URL,
  FredNotConfiguredError,
} from "./upstream.ts";

/** Seconds a buyer should wait after a miss: a fetch is three FRED requests, queued behind others. */
export const SERIES_RETRY_AFTER_SEC = 60;
/** An id FRED did not know is asked again after this long (FRED adds series). */
const MISSING_RECHECK_MS = 24 * 3600_000;

const REQUIRED = "seriesId is required: a FRED series id such as GDP, UNRATE or DGS10 (alias id)";

export const FredSeriesQuery = z.object({
  seriesId: z
    .string({ error: REQUIRED })
    .describe("FRED series id, e.g. GDP, CPIAUCSL, UNRATE, DGS10 (case-insensitive; alias id)")
    .transform((raw, ctx) => {
      const id = raw.trim().toUpperCase();
      if (id === "") ctx.addIssue({ code: "custom", message: REQUIRED });
      else if (id.length > SERIES_ID_MAX)
        ctx.addIssue({
          code: "custom",
          message: `seriesId has ${id.length} characters; FRED series ids have at most ${SERIES_ID_MAX}, got ${JSON.stringify(raw.trim().slice(0, 40))}`,
        });
      else if (!SERIES_ID.test(id))
        ctx.addIssue({
          code: "custom",
          message: `seriesId must be a FRED series id (letters, digits and underscores, at most ${SERIES_ID_MAX}), got ${JSON.stringify(raw.trim().slice(0, 40))}`,
        });
      else return id;
      return z.NEVER;
    }),
});

const Observation = z.object({
  date: z.iso.date().describe("Start of the observation period, YYYY-MM-DD"),
  value: z.string().describe('The value as FRED publishes it, a decimal string; "." marks a missing value'),
});

export const FredSeriesAnswer = z.object({
  ok: z.literal(true),
  seriesId: z.string(),
  title: z.string(),
  units: z.string(),
  frequency: z.string(),
  seasonalAdjustment: z.string(),
  lastUpdated: z.iso.datetime().describe("When FRED last updated the series"),
  latest: Observation.nullable().describe("The most recent observation with a value (null if none has one)"),
  count: z.number().int().nonnegative(),
  observations: z.array(Observation).describe("Observations in date order, missing ones included as '.'"),
  copyright: z
    .string()
    .nullable()
    .describe("FRED's copyright tag for the series, e.g. 'public domain: citation requested'"),
  owners: z
    .array(z.object({ name: z.string(), link: z.string().nullable() }))
    .describe(
      "Who owns a copyrighted series and must be cited: the sources of its FRED release (empty when not copyrighted)",
    ),
  source: z.url().describe("The FRED API URL the observations were fetched from (without the API key)"),
  fetchedAt: z.iso.datetime(),
  notice: z
    .string()
    .describe("FRED's required notice, the series' source terms, and whether this is a recorded sample"),
});

function seriesNotice(
  seriesId: string,
  copyright: string | null,
  citation: string | null,
  recordedSample: boolean,
  owners: Array<{ name: string }> = [],
): string {
  const parts = [
    `Source: Federal Reserve Bank of St. Louis, FRED, https://fred.stlouisfed.org/series/${seriesId}.`,
    FRED_ENDORSEMENT,
    `The series belongs to its original source and is subject to the St. Louis Fed's Terms of Use (${FRED_TERMS_URL})` +
      (copyright ? ` and to its source's terms (${copyright}).` : "."),
  ];
  if (owners.length > 0)
    parts.push(
      `Copyright: ${owners.map((o) => o.name).join("; ")}; cite the owner when you use this series.`,
    );
  if (citation) parts.push(`Source's notice: ${citation}`);
  parts.push(`Missing observations have the value "${MISSING_VALUE}", as FRED publishes them.`);
  const text = parts.join(" ");
  if (!recordedSample) return text;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: these observations come from a recorded sample of FRED's documented response " +
    `shape (UPSTREAMS=replay) and are placeholders, not values published by FRED. ${text}`
  );
}

function notForSale(seriesId: string, reason: string, copyright: string | null): ErrorOutcome {
  return errorOutcome("series_not_for_sale", `seriesId: ${seriesId} is not for sale here. ${reason}`, {
    parameter: "seriesId",
    copyright,
  });
}

function unknownSeries(summary: Extract<SeriesSummary, { status: "missing" }>): ErrorOutcome {
  return notFound(`${summary.message} Check the id at https://fred.stlouisfed.org/.`, {
    seriesId: summary.seriesId,
  });
}

export function fredSeriesProduct(settings: FredSettings) {
  return product({
    sku: "macro.fred.series",
    method: "GET",
    path: "/v1/macro/fred/series",
    summary: "One FRED economic time series: metadata, latest value and observations",
    description:
      "An economic time series from FRED (Federal Reserve Bank of St. Louis): title, units, frequency, seasonal " +
      "adjustment, last update, the latest value and the observations in date order, values as FRED's decimal " +
      `strings ("." for missing). Observations cover ${settings.historyYears === 0 ? "the whole history" : `the last ${settings.historyYears} years`}. ` +
      "A series not cached yet is fetched on the first request (404 not_cached, not charged, retry after the " +
      "given seconds). Series whose owners forbid redistribution are refused before payment; copyrighted series name " +
      "their owners. Live FRED data is served only where the operator holds the St. Louis Fed's permission to " +
      "redistribute it (its Terms of Use prohibit serving stored FRED content otherwise).",
    status: "live",
    tags: ["macro", "fred", "timeseries"],
    price: "0.005",
    query: FredSeriesQuery,
    aliases: { id: "seriesId" },
    answer: FredSeriesAnswer,
    sample: { seriesId: "GDP" },
    source: FRED_SOURCE,

    async check({ query }, ctx) {
      const summary = await readSummaryRecent(ctx.store, query.seriesId, 30_000);
      const body = summary?.body;
      if (body?.status === "refused") return notForSale(query.seriesId, body.reason, body.copyright);
      if (body?.status === "missing" && Date.now() - Date.parse(summary!.fetchedAt) < MISSING_RECHECK_MS)
        return unknownSeries(body);
      if (!summary && !canFetchFred(ctx, settings))
        return upstreamUnavailable(
          `FRED series ${query.seriesId} is not cached and this service cannot fetch it. ${new FredNotConfiguredError(settings).message}`,
        );
      return undefined;
    },

    async handle({ query }, ctx) {
      const doc = await readSeries(ctx.store, query.seriesId);
      const series = doc?.body;
      if (series?.status === "refused") return notForSale(query.seriesId, series.reason, series.copyright);
      if (series?.status === "missing" && Date.now() - Date.parse(doc!.fetchedAt) < MISSING_RECHECK_MS)
        return unknownSeries(series);
      if (!doc || series?.status !== "ok") {
        if (!canFetchFred(ctx, settings))
          return upstreamUnavailable(
            `FRED series ${query.seriesId} is not cached. ${new FredNotConfiguredError(settings).message}`,
          );
        await ctx.store.jobs.enqueue(SERIES_QUEUE, query.seriesId, { seriesId: query.seriesId });
        return notCached(
          `FRED series ${query.seriesId} is not cached yet; it has been queued for fetching from FRED. ` +
            `Try again in about ${SERIES_RETRY_AFTER_SEC} seconds.`,
          SERIES_RETRY_AFTER_SEC,
          { seriesId: query.seriesId },
        );
      }
      return ok({
        ok: true as const,
        seriesId: series.seriesId,
        title: series.title,
        units: series.units,
        frequency: series.frequency,
        seasonalAdjustment: series.seasonalAdjustment,
        lastUpdated: series.lastUpdated,
        latest: latestObservation(series.observations),
        count: series.observations.length,
        observations: series.observations,
        copyright: series.copyright,
        owners: series.owners ?? [],
        source: series.source,
        fetchedAt: doc.fetchedAt,
        notice: seriesNotice(
          series.seriesId,
          series.copyright,
          series.citation,
          doc.recordedSample,
          series.owners ?? [],
        ),
      });
    },
  });
}
