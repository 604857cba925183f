// FRED configuration from the environment, validated when the family is built.
import { ConfigError, envInteger, envOneOf, envString } from "../../config.ts";

export interface FredSettings {
  /** FRED API key (32 lower-case letters and digits); without it nothing is fetched live. */
  apiKey: string | undefined;
  /** Series the warmer keeps cached, in the order given. */
  series: string[];
  /** Years of observations kept per series; 0 = the whole history. */
  historyYears: number;
  /**
   * FRED_REDISTRIBUTION=permitted: the operator holds the St. Louis Fed's permission to store FRED content and
   * serve it to third parties, which its Terms of Use otherwise prohibit. Without it live FRED stays off.
   */
  redistributionPermitted: boolean;
}

export const DEFAULT_FRED_SERIES = ["GDP", "CPIAUCSL", "UNRATE", "FEDFUNDS", "DGS10"];

/** FRED's longest series id: it answers 400 "Series IDs should be 25 or less alphanumeric characters". */
export const SERIES_ID_MAX = 25;

/** FRED series ids: upper-case letters, digits and underscores (FRED treats ids case-insensitively). */
export const SERIES_ID = /^[A-Z0-9][A-Z0-9_]{0,24}$/;

export function readFredSettings(env: Record<string, string | undefined>): FredSettings {
  const apiKey = envString(env, "FRED_API_KEY");
  if (apiKey !== undefined && !/^[a-z0-9]{32}$/.test(apiKey)) {
    throw new ConfigError("FRED_API_KEY", "must be FRED's 32 lower-case letters and digits");
  }
  const rawSeries = envString(env, "FRED_SERIES");
  const series = rawSeries === undefined ? DEFAULT_FRED_SERIES : parseSeriesList(rawSeries);
  return {
    apiKey,
    series,
    historyYears: envInteger(env, "FRED_HISTORY_YEARS", 10, 0, 300),
    redistributionPermitted:
      envOneOf(env, "FRED_REDISTRIBUTION", ["permitted", "not-permitted"] as const, "not-permitted") ===
      "permitted",
  };
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
      throw new ConfigError(
        "FRED_SERIES",
        `"${id}" is not a FRED series id (letters, digits, underscores, at most ${SERIES_ID_MAX})`,
      );
  }
  return [...new Set(ids)];
}
