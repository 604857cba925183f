// NWS api.weather.gov adapters. Sources: the NWS API documentation (weather.gov/documentation/services-web-api,
// weather-gov.github.io/api: User-Agent with contact required, GeoJSON, problem+json errors), the endpoints
// used (/points, /gridpoints/{wfo}/{x},{y}/forecast(/hourly), /stations/{id}/observations
// /latest with QuantitativeValue unitCodes, /alerts/active?area=), and the weather-gov/api issue tracker
// (intermittent 500 "Unexpected Problem" and 503 "Forecast Grid Expired" problem bodies; /points takes at
// most four decimals). No key. The rate limit is not published ("generous"); over it NWS refuses with an
// error and asks for a retry after about 5 s, and proxies reach it sooner, so every answer is cached: points
// for a week, forecasts, observations and alerts until the `Expires` header NWS sends with each.
// Licence: US government work, public domain, no warranty (weather.gov/disclaimer); credit the National
// Weather Service and do not imply endorsement.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import type { PutDocument } from "../../store/cache.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../upstream/client.ts";
import {
  NwsShapeError,
  normaliseAlerts,
  normaliseForecast,
  normaliseObservation,
  normalisePoint,
  normaliseStations,
  problemOf,
} from "./normalise.ts";

export const NWS_UPSTREAM: UpstreamSpec = {
  name: "nws",
  defaultBaseUrl: "https://api.weather.gov",
  maxConcurrent: 4,
  minIntervalMs: 100,
  timeoutMs: 10_000,
  // Gridpoint forecasts fail intermittently with 500/503; one quick retry usually succeeds.
  retries: 1,
  maxRetryAfterMs: 6_000,
};

export const NWS_LICENCE = {
  name: "Public domain (US government work); provided as is, without warranty",
  url: "https://www.weather.gov/disclaimer",
  attribution: "National Weather Service (api.weather.gov); no endorsement by NWS or NOAA is implied",
};

export const NWS_SOURCE: SourceInfo = {
  name: "US National Weather Service API (api.weather.gov)",
  url: "https://api.weather.gov/",
  licence: NWS_LICENCE,
  notice:
    "Data from the National Weather Service, public domain and provided without warranty. For life-threatening " +
    "weather follow official NWS warnings and local authorities.",
};

const MINUTE = 60_000;
/** When NWS sends no usable Expires header. */
const FALLBACK_TTL_MS = {
  point: 7 * 24 * 60 * MINUTE,
  stations: 24 * 60 * MINUTE,
  forecast: 60 * MINUTE,
  observation: 10 * MINUTE,
  alerts: MINUTE,
  missing: 24 * 60 * MINUTE,
};
/** Expires is honoured within these bounds (a clock skew or a year-long Expires should not pin the cache). */
const MIN_TTL_MS = 30_000;
const MAX_TTL_MS = 6 * 60 * MINUTE;

class NwsUnavailable extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** What NWS says does not exist (an unknown point, grid cell or station): cached, answered 404. */
export interface NwsMissing {
  missing: true;
  title: string;
  detail: string | null;
  checkedAt: string;
}

export function isMissing(body: unknown): body is NwsMissing {
  return typeof body === "object" && body !== null && (body as NwsMissing).missing === true;
}

type Ctx = Pick<HandlerContext, "upstreams">;

/** The Expires header as an expiry, bounded; the fallback without one. */
export function expiryFrom(headers: Headers, fallbackMs: number, now = new Date()): string {
  const expires = Date.parse(headers.get("expires") ?? "");
  const ttl = Number.isNaN(expires)
    ? fallbackMs
    : Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, expires - now.getTime()));
  return new Date(now.getTime() + ttl).toISOString();
}

export function nwsUrl(ctx: Ctx, path: string, query?: Record<string, string>): string {
  return ctx.upstreams.client(NWS_UPSTREAM).url({ path, ...(query ? { query } : {}) });
}

async function get(ctx: Ctx, path: string, query?: Record<string, string>): Promise<UpstreamResponse> {
  try {
    return await ctx.upstreams
      .client(NWS_UPSTREAM)
      .get({ path, ...(query ? { query } : {}), headers: { accept: "application/geo+json" } });
  } catch (error) {
    if (error instanceof UpstreamError) throw new NwsUnavailable(error.message, error.status);
    throw new NwsUnavailable(`nws: ${String(error)}`);
  }
}

async function fetchNws<T>(
  ctx: Ctx,
  path: string,
  query: Record<string, string> | undefined,
  ttlMs: number,
  normalise: (body: string) => T,
): Promise<PutDocument<T | NwsMissing>> {
  const response = await get(ctx, path, query);
  const now = new Date();
  const fetchedAt = now.toISOString();
  const recordedSample = response.recordedSample;
  if (response.status === 404) {
    const problem = problemOf(response.body);
    return {
      body: {
        missing: true,
        title: problem.title ?? "Not Found",
        detail: problem.detail,
        checkedAt: fetchedAt,
      },
      fetchedAt,
      expiresAt: new Date(now.getTime() + FALLBACK_TTL_MS.missing).toISOString(),
      recordedSample,
    };
  }
  if (response.status !== 200) {
    const problem = problemOf(response.body);
    const what = [problem.title, problem.detail].filter(Boolean).join(": ");
    throw new NwsUnavailable(
      `nws: HTTP ${response.status} from ${response.url}${what ? ` (${what})` : ""}`,
      response.status,
    );
  }
  try {
    return {
      body: normalise(response.body),
      fetchedAt,
      expiresAt: expiryFrom(response.headers, ttlMs, now),
      recordedSample,
    };
  } catch (error) {
    if (error instanceof NwsShapeError)
      throw new NwsUnavailable(`nws: ${error.message} (${response.url})`, 200);
    throw error;
  }
}

export const pointPath = (lat: string, lon: string) => `/points/${lat},${lon}`;
export const forecastPath = (wfo: string, x: number, y: number, hourly: boolean) =>
  `/gridpoints/${wfo}/${x},${y}/forecast${hourly ? "/hourly" : ""}`;
export const stationsPath = (wfo: string, x: number, y: number) => `/gridpoints/${wfo}/${x},${y}/stations`;
export const observationPath = (stationId: string) => `/stations/${stationId}/observations/latest`;
export const ALERTS_PATH = "/alerts/active";

export function fetchPoint(ctx: Ctx, lat: string, lon: string) {
  // Points never expire on NWS's side within a week; its Expires (hours) is ignored for them.
  return fetchNws(ctx, pointPath(lat, lon), undefined, FALLBACK_TTL_MS.point, normalisePoint).then((doc) =>
    isMissing(doc.body)
      ? doc
      : { ...doc, expiresAt: new Date(Date.parse(doc.fetchedAt) + FALLBACK_TTL_MS.point).toISOString() },
  );
}

export function fetchForecast(ctx: Ctx, wfo: string, x: number, y: number, hourly: boolean) {
  return fetchNws(
    ctx,
    forecastPath(wfo, x, y, hourly),
    undefined,
    FALLBACK_TTL_MS.forecast,
    normaliseForecast,
  );
}

export function fetchStations(ctx: Ctx, wfo: string, x: number, y: number) {
  return fetchNws(ctx, stationsPath(wfo, x, y), undefined, FALLBACK_TTL_MS.stations, normaliseStations);
}

export function fetchObservation(ctx: Ctx, stationId: string) {
  return fetchNws(
    ctx,
    observationPath(stationId),
    undefined,
    FALLBACK_TTL_MS.observation,
    normaliseObservation,
  );
}

export function fetchAlerts(ctx: Ctx, stateCode: string) {
  return fetchNws(ctx, ALERTS_PATH, { area: stateCode }, FALLBACK_TTL_MS.alerts, normaliseAlerts);
}
