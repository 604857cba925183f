// The npm family's configuration, read from the environment when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";
import { npmNameProblem } from "./names.ts";

export interface NpmSettings {
  /** How long a cached packument answers before the registry is asked again (with its ETag). */
  packumentTtlMs: number;
  /** Packages the hourly warmer keeps fresh (packument and weekly downloads). */
  warmPackages: string[];
}

const DEFAULT_WARM_PACKAGES = ["express", "react", "lodash", "axios", "zod", "typescript"];
const MAX_WARM_PACKAGES = 200;

function readWarmPackages(env: Record<string, string | undefined>): string[] {
  const raw = envString(env, "NPM_WARM_PACKAGES");
  if (raw === undefined) return DEFAULT_WARM_PACKAGES;
  if (raw.toLowerCase() === "none") return [];
  const names = [
    ...new Set(
      raw
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    ),
  ];
  for (const name of names) {
    const problem = npmNameProblem(name);
    if (problem) throw new ConfigError("NPM_WARM_PACKAGES", `"${name}": ${problem}`);
  }
  if (names.length > MAX_WARM_PACKAGES)
    throw new ConfigError(
      "NPM_WARM_PACKAGES",
      `lists ${names.length} packages; at most ${MAX_WARM_PACKAGES}`,
    );
  return names;
}

export function readNpmSettings(env: Record<string, string | undefined>): NpmSettings {
  return {
    packumentTtlMs: envInteger(env, "NPM_CACHE_TTL_MINUTES", 60, 1, 7 * 24 * 60) * 60_000,
    warmPackages: readWarmPackages(env),
  };
}
