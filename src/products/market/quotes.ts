// GET /v1/market/quotes: the latest trade of several symbols (all cached ones by default) with the counters.
import { z } from "zod";
import { notCached, ok, product } from "../../catalog/product.ts";
import type { MarketSettings } from "./settings.ts";
import { readSnapshot } from "./snapshot.ts";
import { canonicalSymbol, isMarketSymbol, MARKET_SYMBOLS, type MarketSymbol } from "./symbols.ts";
import {
  MARKET_SOURCE,
  marketNotice,
  QUOTE_RETRY_AFTER_SEC,
  TickAnswer,
  type TickAnswerBody,
  tickAnswer,
} from "./ticks.ts";

const ONE_OF = MARKET_SYMBOLS.join(", ");

export const MarketQuotesQuery = z.object({
  symbols: z
    .string()
    .optional()
    .describe(`Comma-separated symbols among ${ONE_OF}; omit for every cached symbol`)
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const names = raw.split(",").map(canonicalSymbol).filter(Boolean);
      if (names.length === 0) {
        ctx.addIssue({
          code: "custom",
          message: `symbols must list one or more of ${ONE_OF}, or be omitted`,
        });
        return z.NEVER;
      }
      const unknown = names.filter((n) => !isMarketSymbol(n));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `symbols may only list ${ONE_OF}; got ${JSON.stringify(unknown[0]!.slice(0, 20))}`,
        });
        return z.NEVER;
      }
      return [...new Set(names as MarketSymbol[])];
    }),
});

export const QuotesAnswer = z.object({
  source: z.string().describe("The stream URL the trades came from"),
  stream: z.string().describe("The combined stream's names"),
  symbols: z.array(z.enum(MARKET_SYMBOLS)).describe("Symbols in this answer"),
  count: z.number().int().nonnegative(),
  writes: z.number().int().nonnegative().describe("Batch writes of ticks to the store so far"),
  msgs: z.number().int().nonnegative().describe("Trade messages received so far"),
  fetchedAt: z.iso.datetime().describe("When the collector last wrote the ticks"),
  quotes: z.record(z.string(), TickAnswer).describe("Latest trade keyed by symbol"),
  missing: z.array(z.enum(MARKET_SYMBOLS)).describe("Requested symbols with no trade collected yet"),
  notice: z.string(),
});

export function marketQuotesProduct(settings: MarketSettings) {
  return product({
    sku: "market.quotes",
    method: "GET",
    path: "/v1/market/quotes",
    summary: "Latest trades of several crypto pairs in one answer",
    description:
      `The latest trade of each requested symbol (${ONE_OF}; all cached ones when symbols is omitted), ` +
      "with the collector's message and write counters. Symbols with no trade collected yet are listed as missing.",
    status: "live",
    tags: ["market", "crypto"],
    price: "0.005",
    query: MarketQuotesQuery,
    answer: QuotesAnswer,
    sample: { symbols: "BTCUSDT,ETHUSDT" },
    source: MARKET_SOURCE,

    async check({ query }, ctx) {
      const doc = await readSnapshot(ctx.store);
      const wanted = query.symbols ?? MARKET_SYMBOLS;
      if (doc && wanted.some((s) => doc.body.ticks[s])) return undefined;
      return notCached(
        `No trade of ${wanted.join(", ")} has been collected yet. Try again in about ${QUOTE_RETRY_AFTER_SEC} seconds, and see /v1/market/status.`,
        QUOTE_RETRY_AFTER_SEC,
      );
    },

    async handle({ query }, ctx) {
      const doc = await readSnapshot(ctx.store);
      const wanted = query.symbols ?? MARKET_SYMBOLS;
      const now = Date.now();
      const quotes: Record<string, TickAnswerBody> = {};
      const missing: MarketSymbol[] = [];
      for (const symbol of wanted) {
        const tick = doc?.body.ticks[symbol];
        if (doc && tick) quotes[symbol] = tickAnswer(tick, doc, settings.staleAfterMs, now);
        // Without an explicit list, "every cached symbol": the uncached ones are not missing.
        else if (query.symbols) missing.push(symbol);
      }
      const symbols = Object.keys(quotes) as MarketSymbol[];
      if (!doc || symbols.length === 0)
        return notCached(
          `No trade of ${wanted.join(", ")} has been collected yet. Try again in about ${QUOTE_RETRY_AFTER_SEC} seconds.`,
          QUOTE_RETRY_AFTER_SEC,
        );
      return ok({
        source: doc.body.source,
        stream: doc.body.stream,
        symbols,
        count: symbols.length,
        writes: doc.body.writes,
        msgs: doc.body.msgs,
        fetchedAt: doc.fetchedAt,
        quotes,
        missing,
        notice: marketNotice(doc.recordedSample),
      });
    },
  });
}
