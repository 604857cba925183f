// The courts family's configuration, read from the environment when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";
import { parseCourtsQuery } from "./query.ts";

export interface CourtsSettings {
  /** CourtListener API token; without one the API is used anonymously (about 100 requests a day). */
  token: string | undefined;
  /** Queries the daily warmer refreshes, as given (normalised). */
  warmQueries: string[];
  /** How long a cached search answers without asking CourtListener again. */
  cacheTtlMs: number;
  /** Least gap between two searches sent to CourtListener. */
  minIntervalMs: number;
}

/** Popular case-law searches, kept warm so most buyers are served from the cache. */
export const DEFAULT_WARM_QUERIES = [
  "fourth amendment",
  "qualified immunity",
  "miranda warning",
  "excessive force",
  "fair use",
  "due process",
  "ineffective assistance of counsel",
  "first amendment retaliation",
];

export const MAX_WARM_QUERIES = 50;
export const DEFAULT_CACHE_TTL_HOURS = 24;

function readToken(env: Record<string, string | undefined>): string | undefined {
  const token = envString(env, "COURTLISTENER_TOKEN");
  if (token !== undefined && !/^[A-Za-z0-9_-]{8,200}$/.test(token)) {
    throw new ConfigError(
      "COURTLISTENER_TOKEN",
      "must be the API token CourtListener shows on your profile (letters and digits, no spaces or 'Token ' prefix)",
    );
  }
  return token;
}

/** Comma-separated; `none` turns warming off. */
function readWarmQueries(env: Record<string, string | undefined>): string[] {
  const raw = envString(env, "COURTS_WARM_QUERIES");
  if (raw === undefined) return DEFAULT_WARM_QUERIES;
  if (raw.toLowerCase() === "none") return [];
  const queries: string[] = [];
  const seen = new Set<string>();
  for (const entry of raw.split(",")) {
    if (entry.trim() === "") continue;
    const parsed = parseCourtsQuery(entry);
    if ("error" in parsed) throw new ConfigError("COURTS_WARM_QUERIES", `"${entry.trim()}": ${parsed.error}`);
    if (seen.has(parsed.key)) continue;
    seen.add(parsed.key);
    queries.push(parsed.text);
  }
  if (queries.length === 0)
    throw new ConfigError("COURTS_WARM_QUERIES", "lists no query; give comma-separated queries, or none");
  if (queries.length > MAX_WARM_QUERIES) {
    throw new ConfigError(
      "COURTS_WARM_QUERIES",
      `lists ${queries.length} queries; at most ${MAX_WARM_QUERIES} (CourtListener's limits are per day)`,
    );
  }
  return queries;
}

/**
 * Anonymous: 3 s (a day's quota is small; bursts only waste it). With a token: 1 s, 3,600 an hour, under
 * the 5,000 allowed.
 */
export function defaultMinIntervalMs(token: string | undefined): number {
  return token ? 1000 : 3000;
}

export function readCourtsSettings(env: Record<string, string | undefined>): CourtsSettings {
  const token = readToken(env);
  return {
    token,
    warmQueries: readWarmQueries(env),
    cacheTtlMs: envInteger(env, "COURTS_CACHE_TTL_HOURS", DEFAULT_CACHE_TTL_HOURS, 1, 720) * 3600_000,
    minIntervalMs: envInteger(env, "COURTLISTENER_MIN_INTERVAL_MS", defaultMinIntervalMs(token), 0, 60_000),
  };
}

export function authMode(settings: Pick<CourtsSettings, "token">): "anonymous" | "token" {
  return settings.token ? "token" : "anonymous";
}
