// The USPTO family's configuration, read from the environment when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";

export interface UsptoSettings {
  /** PatentsView PatentSearch API key (X-Api-Key); required in live mode. */
  apiKey: string | undefined;
  /** Gap between requests: PatentsView allows 45 a minute per key. */
  minIntervalMs: number;
  /** How long a search answer is served before PatentsView is asked again. */
  searchTtlMs: number;
  /** Days of recent grants the daily warmer caches. */
  recentDays: number;
}

export function readUsptoSettings(env: Record<string, string | undefined>): UsptoSettings {
  const apiKey = envString(env, "PATENTSVIEW_API_KEY");
  if (apiKey !== undefined && !/^[A-Za-z0-9._-]{8,200}$/.test(apiKey)) {
    throw new ConfigError(
      "PATENTSVIEW_API_KEY",
      "must be the PatentSearch API key as issued (letters, digits, . _ -)",
    );
  }
  return {
    apiKey,
    minIntervalMs: envInteger(env, "PATENTSVIEW_MIN_INTERVAL_MS", 1400, 0, 60_000),
    searchTtlMs: envInteger(env, "USPTO_SEARCH_TTL_HOURS", 24, 1, 720) * 3600_000,
    recentDays: envInteger(env, "USPTO_RECENT_DAYS", 7, 1, 90),
  };
}
