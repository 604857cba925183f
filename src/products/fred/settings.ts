// FRED configuration from the environment, validated when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";

export interface FredSettings {
  /** FRED API key (32 lower-case letters and digits); without it nothing is fetched live. */
  apiKey: string | undefined;
  /** Series the warmer keeps cached, in the order given. */
  series: string[];
  /** Years of observations kept per series; 0 = the whole history. */
  historyYears: number;
}

export const DEFAULT_FRED_SERIES = ["GDP", "CPIAUCSL", "UNRATE", "FEDFUNDS", "DGS10"];

/** FRED series ids: upper-case letters, digits and underscores (FRED treats ids case-insensitively). */
export const SERIES_ID = /^[A-Z0-9][A-Z0-9_]{0,39}$/;

export function readFredSettings(env: Record<string, string | undefined>): FredSettings {
  const apiKey = envString(env, "FRED_API_KEY");
  if (apiKey !== undefined && !/^[a-z0-9]{32}$/.test(apiKey)) {
    throw new ConfigError("FRED_API_KEY", "must be FRED's 32 lower-case letters and digits");
  }
  const rawSeries = envString(env, "FRED_SERIES");
  const series = rawSeries === undefined ? DEFAULT_FRED_SERIES : parseSeriesList(rawSeries);
  return { apiKey, series, historyYears: envInteger(env, "FRED_HISTORY_YEARS", 10, 0, 300) };
}

function parseSeriesList(raw: string): string[] {
  const ids = raw
    .split(",")
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  if (ids.length === 0)
    throw new ConfigError("FRED_SERIES", "must list at least one series id, e.g. GDP,UNRATE");
  for (const id of ids) {
    if (!SERIES_ID.test(id))
      throw new ConfigError("FRED_SERIES", `"${id}" is not a FRED series id (letters, digits, underscores)`);
  }
  return [...new Set(ids)];
}
