// The market family: the latest trade of five crypto pairs, collected from Binance's combined trade stream by
// a background collector (one leader across nodes) and served from the store by every node.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { MarketCollector } from "./collector.ts";
import { binancePreflight } from "./preflight.ts";
import { marketQuoteProduct } from "./quote.ts";
import { marketQuotesProduct } from "./quotes.ts";
import { recordedFrames } from "./replay.ts";
import { readMarketSettings } from "./settings.ts";
import { type CollectorHandle, marketStatusProduct } from "./status.ts";

export const MARKET_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");
export const COLLECTOR_TASK = "market.collector";

export const marketFamily: FamilyFactory = (config) => {
  const settings = readMarketSettings(config.env);
  const local: CollectorHandle = { collector: undefined };
  return {
    name: "market",
    preflight: binancePreflight(settings.streamUrl),
    products: [
      marketQuoteProduct(settings),
      marketQuotesProduct(settings),
      marketStatusProduct(settings, local),
    ],
    background: settings.collectorEnabled
      ? [
          {
            name: COLLECTOR_TASK,
            start(ctx) {
              const replay =
                ctx.upstreams.mode === "replay"
                  ? async () => ({ frames: await recordedFrames(ctx), source: settings.streamUrl })
                  : undefined;
              const collector = new MarketCollector(ctx, { ...settings, ...(replay ? { replay } : {}) });
              local.collector = collector;
              collector.start();
              return { stop: () => collector.stop() };
            },
          },
        ]
      : [],
    recordingsDir: MARKET_RECORDINGS_DIR,
  };
};
