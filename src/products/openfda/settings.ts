// The openFDA family's configuration, read from the environment when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";
import { parseLabelQuery } from "./query.ts";

export interface OpenFdaSettings {
  /** openFDA API key: 120,000 requests a day instead of 1,000 per IP (240 a minute either way). */
  apiKey: string | undefined;
  /** How long a cached search answers without asking openFDA again. */
  cacheTtlMs: number;
  /** Queries the daily warmer refreshes. */
  warmQueries: string[];
}

export const DEFAULT_WARM_QUERIES = [
  "ibuprofen",
  "acetaminophen",
  "metformin",
  "lisinopril",
  "atorvastatin",
  "amoxicillin",
  "omeprazole",
  "sertraline",
];

const MAX_WARM_QUERIES = 100;

function readWarmQueries(env: Record<string, string | undefined>): string[] {
  const raw = envString(env, "OPENFDA_WARM_QUERIES");
  if (raw === undefined) return DEFAULT_WARM_QUERIES;
  if (raw.toLowerCase() === "none") return [];
  const seen = new Set<string>();
  for (const entry of raw.split(",")) {
    if (entry.trim() === "") continue;
    const parsed = parseLabelQuery(entry);
    if ("error" in parsed)
      throw new ConfigError("OPENFDA_WARM_QUERIES", `"${entry.trim()}": ${parsed.error}`);
    seen.add(parsed.key);
  }
  if (seen.size === 0)
    throw new ConfigError("OPENFDA_WARM_QUERIES", "lists no query; give comma-separated names, or none");
  if (seen.size > MAX_WARM_QUERIES)
    throw new ConfigError("OPENFDA_WARM_QUERIES", `lists ${seen.size} queries; at most ${MAX_WARM_QUERIES}`);
  return [...seen];
}

export function readOpenFdaSettings(env: Record<string, string | undefined>): OpenFdaSettings {
  const apiKey = envString(env, "OPENFDA_API_KEY");
  if (apiKey !== undefined && !/^[A-Za-z0-9]{20,100}$/.test(apiKey)) {
    throw new ConfigError("OPENFDA_API_KEY", "must be the key open.fda.gov issued (letters and digits only)");
  }
  return {
    apiKey,
    cacheTtlMs: envInteger(env, "OPENFDA_CACHE_TTL_HOURS", 24, 1, 720) * 3600_000,
    warmQueries: readWarmQueries(env),
  };
}

export function authMode(settings: Pick<OpenFdaSettings, "apiKey">): "anonymous" | "key" {
  return settings.apiKey ? "key" : "anonymous";
}
