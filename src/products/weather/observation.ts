// GET /v1/weather/observation: the latest observation of an NWS station (or of the station nearest a US
// location), every measurement converted to one unit and carrying its quality-control flag.
import { z } from "zod";
import type { CachedDocument } from "../../catalog/family-context.ts";
import { notFound, ok, product } from "../../catalog/product.ts";
import { provenance, provenanceOf, Timestamp } from "./answers.ts";
import { cellOf, Deadline, lookupObservation, lookupPoint, lookupStations } from "./lookup.ts";
import { celsiusToFahrenheit, kmhToMph, QUALITY_FLAGS } from "./normalise.ts";
import { ObservationQuery, roundCoordinate } from "./query.ts";
import { NWS_SOURCE, nwsUrl, observationPath, pointPath, stationsPath } from "./upstream.ts";

const qualityCodes = Object.entries(QUALITY_FLAGS)
  .map(([code, meaning]) => `${code} ${meaning}`)
  .join("; ");

function measurementSchema(unit: string, what: string) {
  return z
    .object({
      value: z.number().nullable().describe(`${what}, ${unit}; null when the station did not report it`),
      unit: z.literal(unit),
      qualityControl: z.string().nullable().describe(`MADIS quality-control flag: ${qualityCodes}`),
      quality: z.string().nullable().describe("The flag's meaning"),
    })
    .describe(`${what} (${unit})`);
}

export const ObservationAnswer = z.object({
  ok: z.literal(true),
  station: z.object({
    stationId: z.string().nullable(),
    name: z.string().nullable(),
    lat: z.number().nullable(),
    lon: z.number().nullable(),
    elevationM: z.number().nullable().describe("Station elevation, metres"),
  }),
  nearestTo: z
    .object({ lat: z.number(), lon: z.number() })
    .nullable()
    .describe("The location asked for, when the station was chosen as the nearest to it"),
  timestamp: Timestamp.describe("Time of the observation"),
  ageMinutes: z.number().int().describe("Minutes between the observation and this answer"),
  textDescription: z.string().nullable().describe("Weather in words, e.g. Clear"),
  rawMessage: z.string().nullable().describe("The METAR as reported, when there is one"),
  temperature: measurementSchema("degC", "Air temperature"),
  temperatureF: z.number().nullable().describe("Air temperature, °F (converted)"),
  dewpoint: measurementSchema("degC", "Dew point"),
  windChill: measurementSchema("degC", "Wind chill"),
  heatIndex: measurementSchema("degC", "Heat index"),
  relativeHumidity: measurementSchema("%", "Relative humidity"),
  windDirection: measurementSchema("degree", "Direction the wind blows from, degrees true"),
  windSpeed: measurementSchema("km/h", "Wind speed"),
  windSpeedMph: z.number().nullable().describe("Wind speed, mph (converted)"),
  windGust: measurementSchema("km/h", "Wind gust"),
  barometricPressure: measurementSchema("hPa", "Station pressure"),
  seaLevelPressure: measurementSchema("hPa", "Sea-level pressure"),
  visibility: measurementSchema("m", "Visibility"),
  precipitationLastHour: measurementSchema("mm", "Precipitation in the last hour"),
  cloudLayers: z.array(
    z.object({
      amount: z.string().nullable().describe("METAR cover code: CLR, FEW, SCT, BKN, OVC, VV"),
      baseM: z.number().nullable().describe("Cloud base, metres above ground"),
    }),
  ),
  ...provenance,
});

export const weatherObservation = product({
  sku: "weather.observation",
  method: "GET",
  path: "/v1/weather/observation",
  summary: "Latest NWS station observation, units converted, each value with its quality-control flag",
  description:
    "The latest observation of an NWS observation station (stationId), or of the station nearest a US location " +
    "(lat+lon: the first station NWS lists for the location's grid cell): temperature, dew point, wind chill, heat " +
    "index, humidity, wind, gust, pressures, visibility, precipitation and cloud layers, each converted to one unit " +
    "(°C, km/h, hPa, m, mm) with its MADIS quality-control flag, plus °F and mph. Observations are cached until " +
    "NWS's Expires (minutes). Unknown station: 404, not charged.",
  status: "live",
  tags: ["weather", "nws", "noaa", "us", "observation"],
  price: "0.01",
  query: ObservationQuery,
  answer: ObservationAnswer,
  sample: { stationId: "KMHK" },
  source: NWS_SOURCE,
  async handle({ query }, ctx) {
    const deadline = new Deadline();
    const parts: Array<{ url: string; doc: CachedDocument<unknown> }> = [];
    let stationId = query.stationId;
    if (stationId === undefined) {
      const lat = query.lat as number;
      const lon = query.lon as number;
      const point = await lookupPoint(ctx, lat, lon, deadline);
      if (!point.ok) return point.outcome;
      const cell = cellOf(point.doc.body);
      const stations = await lookupStations(ctx, cell, deadline);
      if (!stations.ok) return stations.outcome;
      const nearest = stations.doc.body[0];
      if (!nearest) {
        return notFound(`NWS lists no observation station for grid cell ${cell.wfo}/${cell.x},${cell.y}.`);
      }
      stationId = nearest.stationId;
      parts.push(
        { url: nwsUrl(ctx, pointPath(roundCoordinate(lat), roundCoordinate(lon))), doc: point.doc },
        { url: nwsUrl(ctx, stationsPath(cell.wfo, cell.x, cell.y)), doc: stations.doc },
      );
    }
    const observation = await lookupObservation(ctx, stationId, deadline);
    if (!observation.ok) return observation.outcome;
    const o = observation.doc.body;
    return ok({
      ok: true as const,
      station: {
        stationId: o.stationId ?? stationId,
        name: o.stationName,
        lat: o.lat,
        lon: o.lon,
        elevationM: o.elevationM,
      },
      nearestTo:
        query.stationId === undefined ? { lat: query.lat as number, lon: query.lon as number } : null,
      timestamp: o.timestamp,
      ageMinutes: Math.round((Date.now() - Date.parse(o.timestamp)) / 60_000),
      textDescription: o.textDescription,
      rawMessage: o.rawMessage,
      temperature: o.temperature,
      temperatureF: celsiusToFahrenheit(o.temperature.value),
      dewpoint: o.dewpoint,
      windChill: o.windChill,
      heatIndex: o.heatIndex,
      relativeHumidity: o.relativeHumidity,
      windDirection: o.windDirection,
      windSpeed: o.windSpeed,
      windSpeedMph: kmhToMph(o.windSpeed.value),
      windGust: o.windGust,
      barometricPressure: o.barometricPressure,
      seaLevelPressure: o.seaLevelPressure,
      visibility: o.visibility,
      precipitationLastHour: o.precipitationLastHour,
      cloudLayers: o.cloudLayers,
      ...provenanceOf([{ url: nwsUrl(ctx, observationPath(stationId)), doc: observation.doc }, ...parts]),
    });
  },
});
