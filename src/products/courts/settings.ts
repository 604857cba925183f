// The courts family's configuration, read from the environment when the family is built.

import { backgroundLimit, type WindowLimits } from "../../budgets/windows.ts";
import { ConfigError, envInteger, envString } from "../../config.ts";
import { parseCourtsQuery } from "./query.ts";

export interface CourtsSettings {
  /** CourtListener API token; without one the API is used anonymously (100 requests a day per IP). */
  token: string | undefined;
  /** Queries the daily warmer refreshes, as given (normalised). */
  warmQueries: string[];
  /** How long a cached search answers without asking CourtListener again. */
  cacheTtlMs: number;
  /** Least gap between two searches sent to CourtListener. */
  minIntervalMs: number;
  /** CourtListener's throttle for this account: searches per sliding minute, hour and day, cluster-wide. */
  limits: Required<WindowLimits>;
  /** Share of each window the warmer may use; the rest is kept for buyers' uncached searches. */
  warmShare: number;
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

const MAX_WARM_QUERIES = 50;
const DEFAULT_CACHE_TTL_HOURS = 24;

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
 * CourtListener's default throttle since April 2026 (Free Law Project, cl/settings/third_party/rest_framework.py):
 * 5 a minute, 50 an hour, 125 a day per user; anonymous callers 100 a day per IP. Paid tiers raise it (25/min,
 * 300/hour, 1,400/day): set the COURTLISTENER_PER_* variables to the account's own.
 */
const FREE_TIER = { perMinute: 5, perHour: 50, perDay: 125 } as const;
const ANONYMOUS_PER_DAY = 100;
const DEFAULT_WARM_SHARE_PERCENT = 60;

function readLimits(
  env: Record<string, string | undefined>,
  token: string | undefined,
): Required<WindowLimits> {
  return {
    perMinute: envInteger(env, "COURTLISTENER_PER_MINUTE", FREE_TIER.perMinute, 1, 10_000),
    perHour: envInteger(env, "COURTLISTENER_PER_HOUR", FREE_TIER.perHour, 1, 100_000),
    perDay: envInteger(
      env,
      "COURTLISTENER_PER_DAY",
      token ? FREE_TIER.perDay : ANONYMOUS_PER_DAY,
      1,
      1_000_000,
    ),
  };
}

/** The warm queries must fit in the warmer's share of a day, or the last ones would never be warmed. */
function checkWarmFits(queries: string[], limits: Required<WindowLimits>, share: number): void {
  const perDay = backgroundLimit(limits.perDay, share);
  if (queries.length > perDay) {
    throw new ConfigError(
      "COURTS_WARM_QUERIES",
      `lists ${queries.length} queries, but the warmer may send only ${perDay} searches a day ` +
        `(COURTS_WARM_SHARE_PERCENT of COURTLISTENER_PER_DAY=${limits.perDay}); list fewer or raise the budget`,
    );
  }
}

/**
 * Anonymous: 3 s (a day's quota is small; bursts only waste it). With a token: 1 s; the windows above keep
 * the totals under CourtListener's throttle.
 */
function defaultMinIntervalMs(token: string | undefined): number {
  return token ? 1000 : 3000;
}

export function readCourtsSettings(env: Record<string, string | undefined>): CourtsSettings {
  const token = readToken(env);
  const limits = readLimits(env, token);
  const warmShare = envInteger(env, "COURTS_WARM_SHARE_PERCENT", DEFAULT_WARM_SHARE_PERCENT, 1, 100) / 100;
  const warmQueries = readWarmQueries(env);
  checkWarmFits(warmQueries, limits, warmShare);
  return {
    token,
    warmQueries,
    cacheTtlMs: envInteger(env, "COURTS_CACHE_TTL_HOURS", DEFAULT_CACHE_TTL_HOURS, 1, 720) * 3600_000,
    minIntervalMs: envInteger(env, "COURTLISTENER_MIN_INTERVAL_MS", defaultMinIntervalMs(token), 0, 60_000),
    limits,
    warmShare,
  };
}

export function authMode(settings: Pick<CourtsSettings, "token">): "anonymous" | "token" {
  return settings.token ? "token" : "anonymous";
}
