// Market (crypto ticks) configuration from the environment, validated when the family is built.
import { ConfigError, envBoolean, envInteger, envString } from "../../config.ts";
import { TRADE_STREAMS } from "./symbols.ts";

export interface MarketSettings {
  /** The combined trade stream URL for the five symbols. */
  streamUrl: string;
  /** Run the collector on this node's worker (it still elects one leader among the nodes that run it). */
  collectorEnabled: boolean;
  /** A tick older than this is flagged stale. */
  staleAfterMs: number;
  /** No message for this long on an open connection → reconnect. */
  silenceMs: number;
  /** Reconnect proactively after this long; Binance closes every connection at 24 hours. */
  maxConnectionMs: number;
  /** How often the latest ticks are written to the store. */
  flushMs: number;
}

const DEFAULT_STREAM_BASE = "wss://stream.binance.com:9443";

/**
 * BINANCE_STREAM_URL may be a base (wss://stream.binance.com:9443, wss://data-stream.binance.vision,
 * wss://stream.binance.us:9443) or a full combined-stream URL; the path becomes /stream and the `streams`
 * parameter always lists the five trade streams.
 */
export function combinedStreamUrl(raw: string, variable = "BINANCE_STREAM_URL"): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(variable, `must be a ws:// or wss:// URL, got "${raw}"`);
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:")
    throw new ConfigError(variable, `must be a ws:// or wss:// URL, got "${raw}"`);
  if (!url.pathname.endsWith("/stream")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/stream`;
  url.search = "";
  // Stream names keep their "@" and "/" unescaped, as Binance documents them.
  return `${url.toString()}?streams=${TRADE_STREAMS}`;
}

export function readMarketSettings(env: Record<string, string | undefined>): MarketSettings {
  return {
    streamUrl: combinedStreamUrl(envString(env, "BINANCE_STREAM_URL") ?? DEFAULT_STREAM_BASE),
    collectorEnabled: envBoolean(env, "MARKET_COLLECTOR", true),
    staleAfterMs: envInteger(env, "MARKET_STALE_AFTER_MS", 60_000, 100, 24 * 3600_000),
    silenceMs: envInteger(env, "MARKET_SILENCE_MS", 30_000, 100, 3600_000),
    // 23 h 30 min: half an hour before Binance's own cut-off.
    maxConnectionMs: envInteger(env, "MARKET_MAX_CONNECTION_MS", 84_600_000, 1000, 86_400_000 - 60_000),
    flushMs: envInteger(env, "MARKET_FLUSH_MS", 250, 10, 10_000),
  };
}
