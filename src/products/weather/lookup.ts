// Cached NWS documents by natural key (rounded point, grid cell, station, state), fetched live inside the paid
// call when missing or past NWS's Expires. One paid call may chain point → grid cell → station; the chain as a
// whole is bounded by one deadline, so a buyer waits at most about 8 s.
import {
  type ErrorOutcome,
  type HandlerContext,
  notFound,
  upstreamUnavailable,
} from "../../catalog/product.ts";
import type { CachedDocument, PutDocument } from "../../store/cache.ts";
import { LIVE_FETCH_TIMEOUT_MS, liveCached } from "../../upstream/live-cache.ts";
import type {
  StoredAlerts,
  StoredForecast,
  StoredObservation,
  StoredPoint,
  StoredStation,
} from "./normalise.ts";
import { roundCoordinate } from "./query.ts";
import {
  fetchAlerts,
  fetchForecast,
  fetchObservation,
  fetchPoint,
  fetchStations,
  isMissing,
  type NwsMissing,
} from "./upstream.ts";

export const WEATHER_CACHE = "weather";
const UNAVAILABLE_RETRY_SEC = 30;
const MIN_STEP_MS = 500;

type Ctx = Pick<HandlerContext, "store" | "upstreams">;

type Found<T> = { ok: true; doc: CachedDocument<T> } | { ok: false; outcome: ErrorOutcome };

export interface GridCell {
  wfo: string;
  x: number;
  y: number;
}

export const keys = {
  point: (lat: string, lon: string) => `point:${lat},${lon}`,
  forecast: (cell: GridCell, hourly: boolean) =>
    `${hourly ? "hourly" : "forecast"}:${cell.wfo}/${cell.x},${cell.y}`,
  stations: (cell: GridCell) => `stations:${cell.wfo}/${cell.x},${cell.y}`,
  observation: (stationId: string) => `observation:${stationId}`,
  alerts: (code: string) => `alerts:${code}`,
};

/** A deadline shared by every step of one paid call. */
export class Deadline {
  private readonly at: number;
  constructor(ms = LIVE_FETCH_TIMEOUT_MS) {
    this.at = Date.now() + ms;
  }
  left(): number {
    return Math.max(MIN_STEP_MS, this.at - Date.now());
  }
}

function unavailable(what: string): ErrorOutcome {
  return upstreamUnavailable(
    `The National Weather Service did not answer for ${what} and it is not cached; nothing was charged. Try again in about ${UNAVAILABLE_RETRY_SEC} seconds.`,
    { retryAfterSec: UNAVAILABLE_RETRY_SEC },
  );
}

async function cachedNws<T>(
  ctx: Ctx,
  key: string,
  what: string,
  deadline: Deadline,
  fetch: () => Promise<PutDocument<T | NwsMissing>>,
): Promise<Found<T>> {
  const result = await liveCached<T | NwsMissing>(ctx, {
    cacheFamily: WEATHER_CACHE,
    key,
    timeoutMs: deadline.left(),
    fetch,
  });
  if (!result.ok) return { ok: false, outcome: unavailable(what) };
  const body = result.doc.body;
  if (isMissing(body)) {
    return {
      ok: false,
      outcome: notFound(
        `NWS has no data for ${what}: ${body.title}${body.detail ? ` (${body.detail})` : ""}.`,
        {
          checkedAt: body.checkedAt,
        },
      ),
    };
  }
  return { ok: true, doc: result.doc as CachedDocument<T> };
}

export function lookupPoint(
  ctx: Ctx,
  lat: number,
  lon: number,
  deadline: Deadline,
): Promise<Found<StoredPoint>> {
  const la = roundCoordinate(lat);
  const lo = roundCoordinate(lon);
  return cachedNws(ctx, keys.point(la, lo), `the point ${la},${lo}`, deadline, () => fetchPoint(ctx, la, lo));
}

export function lookupForecast(
  ctx: Ctx,
  cell: GridCell,
  hourly: boolean,
  deadline: Deadline,
): Promise<Found<StoredForecast>> {
  return cachedNws(
    ctx,
    keys.forecast(cell, hourly),
    `grid cell ${cell.wfo}/${cell.x},${cell.y}`,
    deadline,
    () => fetchForecast(ctx, cell.wfo, cell.x, cell.y, hourly),
  );
}

export function lookupStations(
  ctx: Ctx,
  cell: GridCell,
  deadline: Deadline,
): Promise<Found<StoredStation[]>> {
  return cachedNws(
    ctx,
    keys.stations(cell),
    `the stations of grid cell ${cell.wfo}/${cell.x},${cell.y}`,
    deadline,
    () => fetchStations(ctx, cell.wfo, cell.x, cell.y),
  );
}

export function lookupObservation(
  ctx: Ctx,
  stationId: string,
  deadline: Deadline,
): Promise<Found<StoredObservation>> {
  return cachedNws(ctx, keys.observation(stationId), `station ${stationId}`, deadline, () =>
    fetchObservation(ctx, stationId),
  );
}

export function lookupAlerts(ctx: Ctx, code: string, deadline: Deadline): Promise<Found<StoredAlerts>> {
  return cachedNws(ctx, keys.alerts(code), `the alerts of ${code}`, deadline, () => fetchAlerts(ctx, code));
}

export function cellOf(point: StoredPoint): GridCell {
  return { wfo: point.gridId, x: point.gridX, y: point.gridY };
}
