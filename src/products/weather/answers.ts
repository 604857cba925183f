// Answer pieces every weather route shares: the grid point, forecast periods, provenance and licence.
import { z } from "zod";
import type { CachedDocument } from "../../store/cache.ts";
import type { StoredPoint } from "./normalise.ts";
import { NWS_LICENCE, NWS_SOURCE } from "./upstream.ts";

export const Timestamp = z.iso.datetime({ offset: true });

export const PointSchema = z.object({
  lat: z.number().nullable().describe("Latitude NWS resolved the point to, degrees north"),
  lon: z.number().nullable().describe("Longitude, degrees east"),
  wfo: z.string().describe("Forecast office (gridId) whose grid holds the point, e.g. TOP"),
  gridX: z.number().int().nonnegative(),
  gridY: z.number().int().nonnegative(),
  forecastOffice: z.string().nullable().describe("URL of the forecast office"),
  city: z.string().nullable().describe("Nearest place NWS names for the point"),
  state: z.string().nullable().describe("Two-letter state or territory code of that place"),
  distanceFromCityM: z.number().nullable().describe("Distance from that place, metres"),
  bearingFromCityDeg: z.number().nullable().describe("Bearing from that place, degrees true"),
  forecastZone: z.string().nullable().describe("Public forecast zone id, e.g. KSZ009"),
  county: z.string().nullable().describe("County zone id, e.g. KSC201"),
  fireWeatherZone: z.string().nullable(),
  timeZone: z.string().nullable().describe("IANA time zone, e.g. America/Chicago"),
  radarStation: z.string().nullable().describe("Nearest NEXRAD radar, e.g. KTWX"),
});

export const PeriodSchema = z.object({
  number: z.number().int().positive(),
  name: z.string().nullable().describe("Period name such as Tonight (null for hourly periods)"),
  startTime: Timestamp.describe("Local time with offset"),
  endTime: Timestamp,
  isDaytime: z.boolean().nullable(),
  temperatureF: z.number().nullable().describe("Temperature, °F"),
  temperatureC: z.number().nullable().describe("Temperature, °C (converted)"),
  temperatureTrend: z
    .string()
    .nullable()
    .describe("rising or falling when the temperature moves against the usual daily course"),
  precipitationProbabilityPct: z.number().nullable().describe("Probability of precipitation, percent"),
  dewpointC: z.number().nullable().describe("Dew point, °C (hourly periods)"),
  relativeHumidityPct: z.number().nullable().describe("Relative humidity, percent (hourly periods)"),
  windSpeed: z.string().nullable().describe("Wind speed as NWS words it, e.g. 10 to 15 mph"),
  windSpeedMinMph: z.number().nullable().describe("Lower wind speed, mph"),
  windSpeedMaxMph: z.number().nullable().describe("Upper wind speed, mph"),
  windDirection: z.string().nullable().describe("Compass point the wind blows from, e.g. SW"),
  shortForecast: z.string().nullable(),
  detailedForecast: z.string().nullable().describe("Null for hourly periods"),
  icon: z.string().nullable().describe("NWS icon URL"),
});

const LicenceSchema = z
  .object({ name: z.string(), url: z.url(), attribution: z.string() })
  .describe("NWS terms: public domain, no warranty");

export const provenance = {
  sourceUrl: z.url().describe("The NWS URL of the main document of this answer"),
  sources: z.array(z.url()).describe("Every NWS URL this answer was built from"),
  fetchedAt: Timestamp.describe("When the oldest NWS document of this answer was fetched"),
  licence: LicenceSchema,
  notice: z.string().describe("NWS credit and disclaimer; says so when the answer is a recorded sample"),
};

const SAMPLE_PREFIX =
  "RECORDED SAMPLE, NOT LIVE DATA: this answer comes from recorded samples of the NWS API's documented " +
  "response shapes (UPSTREAMS=replay); it is not a forecast. ";

export function provenanceOf(parts: Array<{ url: string; doc: CachedDocument<unknown> }>) {
  const main = parts[0];
  if (!main) throw new Error("an answer needs at least one source");
  const fetchedAt = parts.map((p) => p.doc.fetchedAt).sort()[0] as string;
  const recorded = parts.some((p) => p.doc.recordedSample);
  return {
    sourceUrl: main.url,
    sources: [...new Set(parts.map((p) => p.url))],
    fetchedAt,
    licence: NWS_LICENCE,
    notice: (recorded ? SAMPLE_PREFIX : "") + (NWS_SOURCE.notice as string),
  };
}

export function pointAnswer(point: StoredPoint): z.infer<typeof PointSchema> {
  const { gridId, ...rest } = point;
  return { ...rest, wfo: gridId };
}
