// The NVD family's own environment variables, validated when the family is built.
import { ConfigError, envInteger, envString } from "../../config.ts";

export interface NvdSettings {
  /** NVD API key (sent as the `apiKey` header); raises the allowance from 10 to 100 requests a rolling minute. */
  apiKey: string | undefined;
  /** Days of last-modified history kept searchable by keyword (and the first sync's reach). */
  recentDays: number;
}

/** NVD issues API keys as UUIDs. */
const API_KEY = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const DEFAULT_RECENT_DAYS = 120;

export function nvdSettings(env: Record<string, string | undefined>): NvdSettings {
  const apiKey = envString(env, "NVD_API_KEY");
  if (apiKey !== undefined && !API_KEY.test(apiKey)) {
    throw new ConfigError("NVD_API_KEY", "must be the UUID NVD issued (8-4-4-4-12 hexadecimal digits)");
  }
  return { apiKey, recentDays: envInteger(env, "NVD_RECENT_DAYS", DEFAULT_RECENT_DAYS, 1, 3650) };
}
