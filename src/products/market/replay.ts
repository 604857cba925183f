// UPSTREAMS=replay: the recorded trade-stream frames, served through the recordings like any upstream answer
// (the core replays HTTP exchanges; a WebSocket stream is recorded as its frames, one per line).
import type { HandlerContext } from "../../catalog/product.ts";
import type { UpstreamSpec } from "../../upstream/client.ts";
import { TRADE_STREAMS } from "./symbols.ts";

const BINANCE_STREAM_UPSTREAM: UpstreamSpec = {
  name: "binance-stream",
  defaultBaseUrl: "https://stream.binance.com:9443",
};

export async function recordedFrames(ctx: Pick<HandlerContext, "upstreams">): Promise<string> {
  const response = await ctx.upstreams
    .client(BINANCE_STREAM_UPSTREAM)
    .get({ path: "/stream", query: { streams: TRADE_STREAMS } });
  return response.body;
}
