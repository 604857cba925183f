// GET /v1/weather/point, /forecast, /forecast-hourly and the /noaa bundle: the NWS grid point of a location
// and its forecasts, cached by rounded point and by grid cell until NWS's Expires.
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import { PeriodSchema, PointSchema, pointAnswer, provenance, provenanceOf, Timestamp } from "./answers.ts";
import { cellOf, Deadline, type GridCell, lookupForecast, lookupPoint } from "./lookup.ts";
import type { StoredPoint } from "./normalise.ts";
import { type GridInput, GridQuery, PointQuery, roundCoordinate } from "./query.ts";
import { forecastPath, NWS_SOURCE, nwsUrl, pointPath } from "./upstream.ts";

const SAMPLE_POINT = { lat: "39.7456", lon: "-97.0892" };
const SAMPLE_GRID = { wfo: "TOP", gridX: "32", gridY: "81" };
const TAGS = ["weather", "nws", "noaa", "us"];

export const PointAnswer = z.object({ ok: z.literal(true), point: PointSchema, ...provenance });

const ForecastFields = {
  grid: z.object({ wfo: z.string(), gridX: z.number().int(), gridY: z.number().int() }),
  point: PointSchema.nullable().describe("The grid point, when the forecast was asked for by lat and lon"),
  generatedAt: Timestamp.nullable().describe("When NWS generated this forecast"),
  updateTime: Timestamp.nullable().describe("Last update of the forecaster's grid"),
  validTimes: z.string().nullable().describe("ISO 8601 interval the forecast covers"),
  elevationM: z.number().nullable().describe("Elevation of the grid cell, metres"),
  expiresAt: Timestamp.nullable().describe("Until when this copy is served (NWS's Expires)"),
  count: z.number().int().nonnegative(),
  periods: z.array(PeriodSchema),
};

export const ForecastAnswer = z.object({
  ok: z.literal(true),
  kind: z.enum(["12-hour", "hourly"]),
  ...ForecastFields,
  ...provenance,
});

export const NoaaAnswer = z.object({
  ok: z.literal(true),
  point: PointSchema,
  grid: ForecastFields.grid,
  generatedAt: ForecastFields.generatedAt,
  updateTime: ForecastFields.updateTime,
  elevationM: ForecastFields.elevationM,
  now: PeriodSchema.nullable().describe("The current 12-hour period"),
  periods: z.array(PeriodSchema).describe("The 12-hour periods of the next seven days"),
  ...provenance,
});

type Ctx = HandlerContext;

async function pointFor(ctx: Ctx, lat: number, lon: number, deadline: Deadline) {
  const found = await lookupPoint(ctx, lat, lon, deadline);
  if (!found.ok) return found;
  return { ...found, url: nwsUrl(ctx, pointPath(roundCoordinate(lat), roundCoordinate(lon))) };
}

async function forecastAnswer(ctx: Ctx, query: GridInput, hourly: boolean) {
  const deadline = new Deadline();
  let cell: GridCell;
  let point: { doc: CachedDocument<StoredPoint>; url: string } | undefined;
  const parts: Array<{ url: string; doc: CachedDocument<unknown> }> = [];
  if (query.lat !== undefined && query.lon !== undefined) {
    const found = await pointFor(ctx, query.lat, query.lon, deadline);
    if (!found.ok) return found.outcome;
    point = found;
    cell = cellOf(found.doc.body);
  } else {
    cell = { wfo: query.wfo as string, x: query.gridX as number, y: query.gridY as number };
  }
  const forecast = await lookupForecast(ctx, cell, hourly, deadline);
  if (!forecast.ok) return forecast.outcome;
  parts.push({ url: nwsUrl(ctx, forecastPath(cell.wfo, cell.x, cell.y, hourly)), doc: forecast.doc });
  if (point) parts.push(point);
  const f = forecast.doc.body;
  return ok({
    ok: true as const,
    kind: hourly ? ("hourly" as const) : ("12-hour" as const),
    grid: { wfo: cell.wfo, gridX: cell.x, gridY: cell.y },
    point: point ? pointAnswer(point.doc.body) : null,
    generatedAt: f.generatedAt,
    updateTime: f.updateTime,
    validTimes: f.validTimes,
    elevationM: f.elevationM,
    expiresAt: forecast.doc.expiresAt,
    count: f.periods.length,
    periods: f.periods,
    ...provenanceOf(parts),
  });
}

export const weatherPoint = product({
  sku: "weather.point",
  method: "GET",
  path: "/v1/weather/point",
  summary: "NWS grid point of a US location: office, grid cell, zone, county, time zone, radar",
  description:
    "The National Weather Service grid point of a location in the US states or territories: forecast office and " +
    "grid cell (for /v1/weather/forecast), nearest named place, forecast and county zones, time zone and radar " +
    "station. Points are cached for a week; a point not cached is asked of NWS live. A location NWS has no grid " +
    "for is 404, not charged; coordinates outside the US are 400 before payment.",
  status: "live",
  tags: TAGS,
  price: "0.01",
  query: PointQuery,
  answer: PointAnswer,
  sample: SAMPLE_POINT,
  source: NWS_SOURCE,
  async handle({ query }, ctx) {
    const found = await pointFor(ctx, query.lat, query.lon, new Deadline());
    if (!found.ok) return found.outcome;
    return ok({ ok: true as const, point: pointAnswer(found.doc.body), ...provenanceOf([found]) });
  },
});

function forecastProduct(hourly: boolean) {
  return product({
    sku: hourly ? "weather.forecast-hourly" : "weather.forecast",
    method: "GET",
    path: hourly ? "/v1/weather/forecast-hourly" : "/v1/weather/forecast",
    summary: hourly
      ? "NWS hourly forecast for a US location or grid cell: temperature, wind, rain chance, humidity"
      : "NWS 12-hour forecast periods for a US location or grid cell, about seven days ahead",
    description:
      `The National Weather Service ${hourly ? "hourly forecast (about 156 hours)" : "forecast in 12-hour periods (day and night, about seven days)"} ` +
      "for lat+lon, or for a grid cell wfo+gridX+gridY as /v1/weather/point gives it. Temperatures in °F and °C, " +
      "wind speed as worded and in mph, precipitation probability in percent. Cached per grid cell until the " +
      "Expires time NWS sends; a cell not cached is asked of NWS live. If NWS fails and nothing is cached: 503, " +
      "not charged.",
    status: "live",
    tags: TAGS,
    price: hourly ? "0.02" : "0.01",
    query: GridQuery,
    answer: ForecastAnswer,
    sample: SAMPLE_GRID,
    source: NWS_SOURCE,
    handle: ({ query }, ctx) => forecastAnswer(ctx, query, hourly),
  });
}

export const weatherForecast = forecastProduct(false);
export const weatherForecastHourly = forecastProduct(true);

export const weatherNoaa = product({
  sku: "weather.noaa",
  method: "GET",
  path: "/v1/weather/noaa",
  summary: "US weather bundle from NOAA's NWS: the grid point and its seven-day forecast in one call",
  description:
    "One call for a location in the US states or territories: the NWS grid point (office, cell, place, zones, time " +
    "zone, radar) and the 12-hour forecast periods of the next seven days, with the current period first. Same " +
    "caching as /v1/weather/point and /v1/weather/forecast. Outside the US: 400 before payment.",
  status: "live",
  tags: TAGS,
  price: "0.01",
  query: PointQuery,
  answer: NoaaAnswer,
  sample: SAMPLE_POINT,
  source: NWS_SOURCE,
  async handle({ query }, ctx) {
    const deadline = new Deadline();
    const point = await pointFor(ctx, query.lat, query.lon, deadline);
    if (!point.ok) return point.outcome;
    const cell = cellOf(point.doc.body);
    const forecast = await lookupForecast(ctx, cell, false, deadline);
    if (!forecast.ok) return forecast.outcome;
    const f = forecast.doc.body;
    return ok({
      ok: true as const,
      point: pointAnswer(point.doc.body),
      grid: { wfo: cell.wfo, gridX: cell.x, gridY: cell.y },
      generatedAt: f.generatedAt,
      updateTime: f.updateTime,
      elevationM: f.elevationM,
      now: f.periods[0] ?? null,
      periods: f.periods,
      ...provenanceOf([
        { url: point.url, doc: point.doc },
        { url: nwsUrl(ctx, forecastPath(cell.wfo, cell.x, cell.y, false)), doc: forecast.doc },
      ]),
    });
  },
});
