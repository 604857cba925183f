// compose.yaml read as Compose reads it: YAML with merge keys, then ${VAR} interpolation from the environment.
import fs from "node:fs";
import path from "node:path";
// yaml comes with the dev tools (a dependency of the OpenAPI validator); Compose files use YAML 1.1 merge keys.
import { parse } from "yaml";
import { repoRoot } from "./podman.ts";

export interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  volumes?: string[];
}

export const readRepoFile = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");

export const services = (
  parse(readRepoFile("compose.yaml"), { merge: true }) as { services: Record<string, ComposeService> }
).services;

/** The services built from the Dockerfile (paycall's nodes), by name. */
export const paycallServices = Object.entries(services).filter(([, service]) => service.build === ".");

/** What an operator must export before `docker compose up` (valid placeholders). */
export const operatorEnv = {
  PAY_TO_EVM: "0x1111111111111111111111111111111111111111",
  RECEIPT_SIGNING_KEY: `0x${"ab".repeat(32)}`,
};

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}, $$. */
export function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{(\w+)(?:(:?)([-?])((?:[^}$]|\$\$)*))?\}/g,
    (match, name, colon, kind, word) => {
      if (match === "$$") return "$";
      const set = name in env && (colon !== ":" || env[name] !== "");
      if (set) return env[name];
      if (kind === "?") throw new Error(`${name}: ${word}`);
      return kind === "-" ? word : "";
    },
  );
}

/** A service's environment as Compose passes it, interpolated from `env`. */
export function environmentOf(
  service: ComposeService,
  env: Record<string, string> = operatorEnv,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value), env)]),
  );
}

/** The image's own ENV (the Dockerfile's last stage), which Compose's environment adds to. */
export function imageEnv(): Record<string, string> {
  const finalStage =
    readRepoFile("Dockerfile")
      .split(/^FROM /m)
      .at(-1) ?? "";
  const envBlock = finalStage.match(/^ENV ((?:.*\\\n)*.*)$/m)?.[1] ?? "";
  return Object.fromEntries([...envBlock.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}
