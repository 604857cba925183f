// The weather family's configuration, read from the environment when the family is built.
import { ConfigError, envString } from "../../config.ts";
import { regionsAt } from "./regions.ts";

export interface WeatherSettings {
  /** Locations whose grid point and 12-hour forecast the warmer keeps fresh. */
  warmPoints: Array<{ lat: number; lon: number }>;
}

/** Large US cities, and the point of NWS's own documentation example (the free sample). */
const DEFAULT_WARM_POINTS =
  "39.7456,-97.0892;40.7128,-74.006;34.0522,-118.2437;41.8781,-87.6298;29.7604,-95.3698;" +
  "33.4484,-112.074;39.7392,-104.9903;47.6062,-122.3321;25.7617,-80.1918";

export function readWeatherSettings(env: Record<string, string | undefined>): WeatherSettings {
  const raw = envString(env, "WEATHER_WARM_POINTS") ?? DEFAULT_WARM_POINTS;
  if (raw.toLowerCase() === "none") return { warmPoints: [] };
  const warmPoints = raw
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((entry) => {
      const match = entry.match(/^(-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)$/);
      const lat = Number(match?.[1]);
      const lon = Number(match?.[2]);
      if (!match || regionsAt(lat, lon).length === 0) {
        throw new ConfigError(
          "WEATHER_WARM_POINTS",
          `"${entry}" is not lat,lon inside the US states and territories`,
        );
      }
      return { lat, lon };
    });
  if (warmPoints.length > 100) throw new ConfigError("WEATHER_WARM_POINTS", "lists more than 100 points");
  return { warmPoints };
}
