// The doctor family's settings, read from the environment when the family is built.
import { type Config, ConfigError, envInteger, envString } from "../../config.ts";

export interface DoctorConfig {
  /** The wallet the test-buy pays sellers from (USDC on Base); without it a purchase answers 503. */
  buyerPrivateKey?: `0x${string}`;
  /**
   * `host:port` pairs that skip the public-address and port checks. Operator-only: for tests with loopback
   * sellers and for private deployments that must reach their own hosts. Never set from a request.
   */
  allowHosts: ReadonlySet<string>;
  fetchTimeoutMs: number;
  maxBodyBytes: number;
}

/** `example.com:8443`, `127.0.0.1:4021`, `[::1]:80` → the canonical `hostname:port` the fetcher compares. */
export function canonicalHostPort(entry: string): string | undefined {
  const match = /^(.+):(\d{1,5})$/.exec(entry.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    const url = new URL(`http://${match[1]}/`);
    if (url.username || url.password || url.pathname !== "/") return undefined;
    return `${url.hostname}:${port}`;
  } catch {
    return undefined;
  }
}

export function loadDoctorConfig(config: Config): DoctorConfig {
  const env = config.env;
  const key = envString(env, "DOCTOR_BUYER_PRIVATE_KEY");
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError("DOCTOR_BUYER_PRIVATE_KEY", "must be a 0x-prefixed 32-byte hex private key");
  }
  const allowHosts = new Set<string>();
  for (const entry of (envString(env, "DOCTOR_ALLOW_HOSTS") ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const canonical = canonicalHostPort(entry);
    if (!canonical) {
      throw new ConfigError(
        "DOCTOR_ALLOW_HOSTS",
        `must be a comma-separated list of host:port (e.g. 127.0.0.1:4021), got "${entry.trim()}"`,
      );
    }
    allowHosts.add(canonical);
  }
  return {
    ...(key ? { buyerPrivateKey: key as `0x${string}` } : {}),
    allowHosts,
    fetchTimeoutMs: envInteger(env, "DOCTOR_FETCH_TIMEOUT_MS", 10_000, 500, 60_000),
    maxBodyBytes: envInteger(env, "DOCTOR_MAX_BODY_BYTES", 1_048_576, 1024, 16_777_216),
  };
}
