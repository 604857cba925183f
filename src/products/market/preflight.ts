// The market check `npm run preflight` runs: the WebSocket handshake with Binance's trade stream.
import type { PreflightCheck } from "../../catalog/product.ts";
import { websocketProbe } from "../../preflight/probe.ts";

/** Binance's combined trade stream: the WebSocket handshake only. */
export function binancePreflight(streamUrl: string): PreflightCheck[] {
  return [
    websocketProbe(
      "binance",
      streamUrl,
      "Check BINANCE_STREAM_URL; binance.com blocks some regions (use data-stream.binance.vision or stream.binance.us).",
    ),
  ];
}
