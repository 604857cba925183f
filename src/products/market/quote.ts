// GET /v1/market/quote: the latest trade of one symbol, from the collector's snapshot.
import { z } from "zod";
import { notCached, ok, product } from "../../catalog/product.ts";
import type { MarketSettings } from "./settings.ts";
import { readSnapshot } from "./snapshot.ts";
import { canonicalSymbol, MARKET_SYMBOLS } from "./symbols.ts";
import { MARKET_SOURCE, QUOTE_RETRY_AFTER_SEC, TickAnswer, tickAnswer, tickOf } from "./ticks.ts";

const ONE_OF = MARKET_SYMBOLS.join(", ");

export const MarketQuoteQuery = z.object({
  symbol: z
    .preprocess(
      (raw) => (typeof raw === "string" ? canonicalSymbol(raw) : raw),
      z.enum(MARKET_SYMBOLS, {
        error: (issue) =>
          issue.input === undefined || issue.input === ""
            ? `symbol is required: one of ${ONE_OF}`
            : `symbol must be one of ${ONE_OF}; got ${JSON.stringify(String(issue.input).slice(0, 20))}`,
      }),
    )
    .describe(`Trading pair: ${ONE_OF} (case and a / or - separator are forgiven)`),
});

function notCachedYet(symbol: string) {
  return notCached(
    `No trade of ${symbol} has been collected yet; the collector writes within a second of the first trade. ` +
      `Try again in about ${QUOTE_RETRY_AFTER_SEC} seconds, and see /v1/market/status.`,
    QUOTE_RETRY_AFTER_SEC,
  );
}

export function marketQuoteProduct(settings: MarketSettings) {
  return product({
    sku: "market.quote",
    method: "GET",
    path: "/v1/market/quote",
    summary: "Latest trade of one crypto pair (BTC, ETH, SOL, BNB or XRP against USDT)",
    description:
      `The latest trade of ${ONE_OF} on Binance's spot market, as collected from its public trade stream: ` +
      "price and quantity (numbers), trade and event times (epoch ms), when it was received, and a stale flag " +
      `when it is older than ${settings.staleAfterMs} ms.`,
    status: "live",
    tags: ["market", "crypto"],
    price: "0.005",
    query: MarketQuoteQuery,
    answer: TickAnswer,
    sample: { symbol: "BTCUSDT" },
    source: MARKET_SOURCE,

    async check({ query }, ctx) {
      return tickOf(await readSnapshot(ctx.store), query.symbol) ? undefined : notCachedYet(query.symbol);
    },

    async handle({ query }, ctx) {
      const doc = await readSnapshot(ctx.store);
      const tick = tickOf(doc, query.symbol);
      if (!doc || !tick) return notCachedYet(query.symbol);
      return ok(tickAnswer(tick, doc, settings.staleAfterMs));
    },
  });
}
