// api.weather.gov GeoJSON → the shapes this service caches and answers. Every field is optional upstream and
// every `value` may be null; units are read from each QuantitativeValue's `unitCode` ("wmoUnit:degC", older
// "unit:degC") and converted, never assumed. Forecast temperature and wind speed come as plain values
// ("temperature": 91, "temperatureUnit": "F"; "windSpeed": "10 to 15 mph") or, behind NWS feature flags, as
// QuantitativeValues; both are read.
import { isObject, type JsonObject } from "../../json.ts";

export class NwsShapeError extends Error {}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function round(value: number | null, digits = 1): number | null {
  if (value === null) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function parse(body: string, what: string): JsonObject {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new NwsShapeError(`${what} is not JSON`);
  }
  if (!isObject(doc)) throw new NwsShapeError(`${what} is not a JSON object`);
  return doc;
}

function propertiesOf(doc: JsonObject, what: string): JsonObject {
  if (!isObject(doc.properties)) throw new NwsShapeError(`${what} has no properties`);
  return doc.properties;
}

/** The last path segment of an NWS URL: ".../zones/forecast/KSZ009" → "KSZ009". */
function idFromUrl(value: unknown): string | null {
  const url = text(value);
  return url ? (url.split("/").filter(Boolean).pop() ?? null) : null;
}

// Units -----------------------------------------------------------------------------------------------------

type Quantity = "temperature" | "speed" | "pressure" | "distance" | "precipitation" | "percent" | "angle";

/** The unit each quantity is answered in. */
const ANSWER_UNITS: Record<Quantity, string> = {
  temperature: "degC",
  speed: "km/h",
  pressure: "hPa",
  distance: "m",
  precipitation: "mm",
  percent: "%",
  angle: "degree",
};

const CONVERT: Record<Quantity, Record<string, (v: number) => number>> = {
  temperature: { degC: (v) => v, degF: (v) => ((v - 32) * 5) / 9, K: (v) => v - 273.15 },
  speed: {
    "km_h-1": (v) => v,
    "m_s-1": (v) => v * 3.6,
    kn: (v) => v * 1.852,
    kt: (v) => v * 1.852,
    "[mi_i]_h-1": (v) => v * 1.609344,
    "mi_h-1": (v) => v * 1.609344,
  },
  pressure: { Pa: (v) => v / 100, hPa: (v) => v, kPa: (v) => v * 10 },
  distance: { m: (v) => v, km: (v) => v * 1000, "[mi_i]": (v) => v * 1609.344, mi: (v) => v * 1609.344 },
  precipitation: { mm: (v) => v, m: (v) => v * 1000, cm: (v) => v * 10 },
  percent: { percent: (v) => v },
  angle: { "degree_(angle)": (v) => v },
};

/** The unit code without its namespace: "wmoUnit:degC" → "degC". */
function unitOf(unitCode: unknown): string | null {
  const code = text(unitCode);
  return code ? code.replace(/^[A-Za-z]+:/, "") : null;
}

/** The value converted to the quantity's answer unit; null when missing or in a unit not known here. */
export function convert(quantity: Quantity, value: unknown, unitCode: unknown): number | null {
  const v = num(value);
  const unit = unitOf(unitCode);
  if (v === null || unit === null) return null;
  const f = CONVERT[quantity][unit];
  return f ? round(f(v), 2) : null;
}

export const celsiusToFahrenheit = (c: number | null) => (c === null ? null : round((c * 9) / 5 + 32, 1));
export const kmhToMph = (kmh: number | null) => (kmh === null ? null : round(kmh / 1.609344, 1));

// Points --------------------------------------------------------------------------------------------------

export interface StoredPoint {
  lat: number | null;
  lon: number | null;
  gridId: string;
  gridX: number;
  gridY: number;
  forecastOffice: string | null;
  city: string | null;
  state: string | null;
  distanceFromCityM: number | null;
  bearingFromCityDeg: number | null;
  forecastZone: string | null;
  county: string | null;
  fireWeatherZone: string | null;
  timeZone: string | null;
  radarStation: string | null;
}

export function normalisePoint(body: string): StoredPoint {
  const doc = parse(body, "the point");
  const p = propertiesOf(doc, "the point");
  const gridId = text(p.gridId) ?? text(p.cwa);
  const gridX = num(p.gridX);
  const gridY = num(p.gridY);
  if (!gridId || gridX === null || gridY === null) throw new NwsShapeError("the point has no grid cell");
  const coordinates =
    isObject(doc.geometry) && Array.isArray(doc.geometry.coordinates) ? doc.geometry.coordinates : [];
  const relative =
    isObject(p.relativeLocation) && isObject(p.relativeLocation.properties)
      ? p.relativeLocation.properties
      : {};
  const distance = isObject(relative.distance) ? relative.distance : {};
  const bearing = isObject(relative.bearing) ? relative.bearing : {};
  return {
    lat: num(coordinates[1]),
    lon: num(coordinates[0]),
    gridId,
    gridX,
    gridY,
    forecastOffice: text(p.forecastOffice),
    city: text(relative.city),
    state: text(relative.state),
    distanceFromCityM: round(convert("distance", distance.value, distance.unitCode), 0),
    bearingFromCityDeg: convert("angle", bearing.value, bearing.unitCode),
    forecastZone: idFromUrl(p.forecastZone),
    county: idFromUrl(p.county),
    fireWeatherZone: idFromUrl(p.fireWeatherZone),
    timeZone: text(p.timeZone),
    radarStation: text(p.radarStation),
  };
}

// Forecasts -----------------------------------------------------------------------------------------------

interface StoredPeriod {
  number: number;
  name: string | null;
  startTime: string;
  endTime: string;
  isDaytime: boolean | null;
  temperatureF: number | null;
  temperatureC: number | null;
  temperatureTrend: string | null;
  precipitationProbabilityPct: number | null;
  dewpointC: number | null;
  relativeHumidityPct: number | null;
  windSpeed: string | null;
  windSpeedMinMph: number | null;
  windSpeedMaxMph: number | null;
  windDirection: string | null;
  shortForecast: string | null;
  detailedForecast: string | null;
  icon: string | null;
}

export interface StoredForecast {
  generatedAt: string | null;
  updateTime: string | null;
  validTimes: string | null;
  elevationM: number | null;
  periods: StoredPeriod[];
}

function temperatureOf(period: JsonObject): { c: number | null; f: number | null } {
  const t = period.temperature;
  if (isObject(t)) {
    const c = convert("temperature", t.value, t.unitCode);
    return { c, f: celsiusToFahrenheit(c) };
  }
  const value = num(t);
  if (value === null) return { c: null, f: null };
  if (period.temperatureUnit === "C") return { c: value, f: celsiusToFahrenheit(value) };
  return { c: round(((value - 32) * 5) / 9, 1), f: value };
}

/** "10 to 15 mph", "5 mph", "Calm"; or a QuantitativeValue with value or minValue/maxValue. */
export function windSpeedOf(value: unknown): {
  text: string | null;
  minMph: number | null;
  maxMph: number | null;
} {
  if (isObject(value)) {
    const unit = value.unitCode;
    const min = kmhToMph(convert("speed", value.minValue ?? value.value, unit));
    const max = kmhToMph(convert("speed", value.maxValue ?? value.value, unit));
    return { text: null, minMph: min, maxMph: max };
  }
  const s = text(value);
  if (!s) return { text: null, minMph: null, maxMph: null };
  if (/^calm$/i.test(s.trim())) return { text: s, minMph: 0, maxMph: 0 };
  const match = s.match(/^\s*(\d+(?:\.\d+)?)(?:\s*to\s*(\d+(?:\.\d+)?))?\s*(mph|km\/h|kt)\s*$/i);
  if (!match) return { text: s, minMph: null, maxMph: null };
  const factor = /km/i.test(match[3] as string)
    ? 1 / 1.609344
    : /kt/i.test(match[3] as string)
      ? 1.150779
      : 1;
  const min = round(Number(match[1]) * factor, 1);
  const max = round(Number(match[2] ?? match[1]) * factor, 1);
  return { text: s, minMph: min, maxMph: max };
}

function quantity(value: unknown, q: Quantity): number | null {
  return isObject(value) ? convert(q, value.value, value.unitCode) : null;
}

function periodOf(period: JsonObject): StoredPeriod | undefined {
  const startTime = text(period.startTime);
  const endTime = text(period.endTime);
  const number = num(period.number);
  if (!startTime || !endTime || number === null) return undefined;
  const temperature = temperatureOf(period);
  const wind = windSpeedOf(period.windSpeed);
  return {
    number,
    name: text(period.name),
    startTime,
    endTime,
    isDaytime: typeof period.isDaytime === "boolean" ? period.isDaytime : null,
    temperatureF: temperature.f,
    temperatureC: temperature.c,
    temperatureTrend: text(period.temperatureTrend),
    precipitationProbabilityPct: quantity(period.probabilityOfPrecipitation, "percent"),
    dewpointC: quantity(period.dewpoint, "temperature"),
    relativeHumidityPct: quantity(period.relativeHumidity, "percent"),
    windSpeed: wind.text,
    windSpeedMinMph: wind.minMph,
    windSpeedMaxMph: wind.maxMph,
    windDirection: text(period.windDirection),
    shortForecast: text(period.shortForecast),
    detailedForecast: text(period.detailedForecast),
    icon: text(period.icon),
  };
}

export function normaliseForecast(body: string): StoredForecast {
  const p = propertiesOf(parse(body, "the forecast"), "the forecast");
  if (!Array.isArray(p.periods)) throw new NwsShapeError("the forecast has no periods");
  const elevation = isObject(p.elevation) ? p.elevation : {};
  return {
    generatedAt: text(p.generatedAt),
    updateTime: text(p.updateTime),
    validTimes: text(p.validTimes),
    elevationM: convert("distance", elevation.value, elevation.unitCode),
    periods: p.periods.flatMap((period) => {
      const stored = isObject(period) ? periodOf(period) : undefined;
      return stored ? [stored] : [];
    }),
  };
}

// Stations and observations -------------------------------------------------------------------------------

export interface StoredStation {
  stationId: string;
  name: string | null;
  timeZone: string | null;
  lat: number | null;
  lon: number | null;
}

/** The grid cell's observation stations, nearest first as NWS lists them. */
export function normaliseStations(body: string): StoredStation[] {
  const doc = parse(body, "the station list");
  if (!Array.isArray(doc.features)) throw new NwsShapeError("the station list has no features");
  return doc.features.flatMap((feature) => {
    if (!isObject(feature) || !isObject(feature.properties)) return [];
    const p = feature.properties;
    const stationId = text(p.stationIdentifier);
    if (!stationId) return [];
    const coordinates =
      isObject(feature.geometry) && Array.isArray(feature.geometry.coordinates)
        ? feature.geometry.coordinates
        : [];
    return [
      {
        stationId,
        name: text(p.name),
        timeZone: text(p.timeZone),
        lat: num(coordinates[1]),
        lon: num(coordinates[0]),
      },
    ];
  });
}

/** MADIS quality-control flags, as NWS passes them through ("V" or "qc:V"). */
export const QUALITY_FLAGS: Record<string, string> = {
  Z: "preliminary, no quality control",
  C: "coarse pass",
  S: "screened",
  V: "verified",
  X: "rejected",
  Q: "questioned",
  G: "subjective good",
  B: "subjective bad",
  T: "virtual temperature, not corrected",
};

interface StoredMeasurement {
  value: number | null;
  unit: string;
  qualityControl: string | null;
  quality: string | null;
}

export interface StoredObservation {
  stationId: string | null;
  stationName: string | null;
  timestamp: string;
  textDescription: string | null;
  rawMessage: string | null;
  elevationM: number | null;
  lat: number | null;
  lon: number | null;
  temperature: StoredMeasurement;
  dewpoint: StoredMeasurement;
  windChill: StoredMeasurement;
  heatIndex: StoredMeasurement;
  relativeHumidity: StoredMeasurement;
  windDirection: StoredMeasurement;
  windSpeed: StoredMeasurement;
  windGust: StoredMeasurement;
  barometricPressure: StoredMeasurement;
  seaLevelPressure: StoredMeasurement;
  visibility: StoredMeasurement;
  precipitationLastHour: StoredMeasurement;
  cloudLayers: Array<{ amount: string | null; baseM: number | null }>;
}

function measurement(value: unknown, q: Quantity): StoredMeasurement {
  const v = isObject(value) ? value : {};
  const qc = text(v.qualityControl)?.replace(/^qc:/, "") ?? null;
  return {
    value: convert(q, v.value, v.unitCode),
    unit: ANSWER_UNITS[q],
    qualityControl: qc,
    quality: qc ? (QUALITY_FLAGS[qc] ?? null) : null,
  };
}

export function normaliseObservation(body: string): StoredObservation {
  const doc = parse(body, "the observation");
  const p = propertiesOf(doc, "the observation");
  const timestamp = text(p.timestamp);
  if (!timestamp) throw new NwsShapeError("the observation has no timestamp");
  const coordinates =
    isObject(doc.geometry) && Array.isArray(doc.geometry.coordinates) ? doc.geometry.coordinates : [];
  const elevation = isObject(p.elevation) ? p.elevation : {};
  return {
    stationId: text(p.stationId) ?? idFromUrl(p.station),
    stationName: text(p.stationName),
    timestamp,
    textDescription: text(p.textDescription),
    rawMessage: text(p.rawMessage),
    elevationM: convert("distance", elevation.value, elevation.unitCode),
    lat: num(coordinates[1]),
    lon: num(coordinates[0]),
    temperature: measurement(p.temperature, "temperature"),
    dewpoint: measurement(p.dewpoint, "temperature"),
    windChill: measurement(p.windChill, "temperature"),
    heatIndex: measurement(p.heatIndex, "temperature"),
    relativeHumidity: measurement(p.relativeHumidity, "percent"),
    windDirection: measurement(p.windDirection, "angle"),
    windSpeed: measurement(p.windSpeed, "speed"),
    windGust: measurement(p.windGust, "speed"),
    barometricPressure: measurement(p.barometricPressure, "pressure"),
    seaLevelPressure: measurement(p.seaLevelPressure, "pressure"),
    visibility: measurement(p.visibility, "distance"),
    precipitationLastHour: measurement(p.precipitationLastHour, "precipitation"),
    cloudLayers: Array.isArray(p.cloudLayers)
      ? p.cloudLayers.filter(isObject).map((layer) => ({
          amount: text(layer.amount),
          baseM: isObject(layer.base) ? convert("distance", layer.base.value, layer.base.unitCode) : null,
        }))
      : [],
  };
}

// Alerts --------------------------------------------------------------------------------------------------

interface StoredAlert {
  id: string;
  event: string | null;
  headline: string | null;
  severity: string | null;
  certainty: string | null;
  urgency: string | null;
  status: string | null;
  messageType: string | null;
  category: string | null;
  response: string | null;
  areaDesc: string | null;
  affectedZones: string[];
  sent: string | null;
  effective: string | null;
  onset: string | null;
  expires: string | null;
  ends: string | null;
  senderName: string | null;
  description: string | null;
  instruction: string | null;
  hasPolygon: boolean;
}

export interface StoredAlerts {
  title: string | null;
  updated: string | null;
  alerts: StoredAlert[];
}

export function normaliseAlerts(body: string): StoredAlerts {
  const doc = parse(body, "the alert list");
  if (!Array.isArray(doc.features)) throw new NwsShapeError("the alert list has no features");
  return {
    title: text(doc.title),
    updated: text(doc.updated),
    alerts: doc.features.flatMap((feature) => {
      if (!isObject(feature) || !isObject(feature.properties)) return [];
      const p = feature.properties;
      const id = text(p.id) ?? text(feature.id);
      if (!id) return [];
      return [
        {
          id,
          event: text(p.event),
          headline: text(p.headline),
          severity: text(p.severity),
          certainty: text(p.certainty),
          urgency: text(p.urgency),
          status: text(p.status),
          messageType: text(p.messageType),
          category: text(p.category),
          response: text(p.response),
          areaDesc: text(p.areaDesc),
          affectedZones: Array.isArray(p.affectedZones)
            ? p.affectedZones.map(idFromUrl).filter((z): z is string => z !== null)
            : [],
          sent: text(p.sent),
          effective: text(p.effective),
          onset: text(p.onset),
          expires: text(p.expires),
          ends: text(p.ends),
          senderName: text(p.senderName),
          description: text(p.description),
          instruction: text(p.instruction),
          hasPolygon: isObject(feature.geometry),
        },
      ];
    }),
  };
}

/** An NWS problem+json body: title and detail, when the body is one. */
export function problemOf(body: string): {
  title: string | null;
  type: string | null;
  detail: string | null;
} {
  try {
    const doc = JSON.parse(body) as unknown;
    if (isObject(doc)) return { title: text(doc.title), type: text(doc.type), detail: text(doc.detail) };
  } catch {
    // not JSON
  }
  return { title: null, type: null, detail: null };
}
