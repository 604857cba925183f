// The USPTO family's configuration, read from the environment when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";

export interface UsptoSettings {
  /** USPTO Open Data Portal API key (x-api-key); required in live mode. */
  apiKey: string | undefined;
  /**
   * PATENTSVIEW_API_KEY is still set: a PatentSearch key, which the Open Data Portal does not accept. Only
   * reported (the family stays disabled without USPTO_API_KEY), never sent.
   */
  legacyPatentsViewKey: boolean;
  /** Gap between two requests to the portal, booked for the whole cluster. */
  minIntervalMs: number;
  /** How long a search answer is served before the portal is asked again. */
  searchTtlMs: number;
  /** Days of recent grants the daily warmer caches. */
  recentDays: number;
}

/** Settings of the PatentsView era that no longer do anything. */
export const LEGACY_VARIABLES = [
  "PATENTSVIEW_API_KEY",
  "PATENTSVIEW_MIN_INTERVAL_MS",
  "PATENTSVIEW_BASE_URL",
];

export function readUsptoSettings(env: Record<string, string | undefined>): UsptoSettings {
  const apiKey = envString(env, "USPTO_API_KEY");
  // The key goes into a header: visible ASCII only, no spaces.
  if (apiKey !== undefined && !/^[\x21-\x7e]{8,200}$/.test(apiKey)) {
    throw new ConfigError(
      "USPTO_API_KEY",
      "must be the Open Data Portal API key as issued (8 to 200 visible characters, no spaces)",
    );
  }
  return {
    apiKey,
    legacyPatentsViewKey: envString(env, "PATENTSVIEW_API_KEY") !== undefined,
    minIntervalMs: envInteger(env, "USPTO_MIN_INTERVAL_MS", 500, 0, 60_000),
    searchTtlMs: envInteger(env, "USPTO_SEARCH_TTL_HOURS", 24, 1, 720) * 3600_000,
    recentDays: envInteger(env, "USPTO_RECENT_DAYS", 7, 1, 90),
  };
}
