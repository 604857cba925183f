// Ticks as buyers see them, built from the collector's snapshot.
import { z } from "zod";
import type { SourceInfo } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import type { MarketSnapshot, StoredTick } from "./snapshot.ts";
import { MARKET_SYMBOLS, type MarketSymbol } from "./symbols.ts";

const MARKET_ATTRIBUTION = "Source: Binance";

export const MARKET_SOURCE: SourceInfo = {
  name: "Binance spot market: public trade stream (latest trade per symbol)",
  url: "https://developers.binance.com/docs/binance-spot-api-docs/web-socket-streams",
  licence: {
    name: "Binance Terms of Use and API terms govern the use and redistribution of its market data",
    url: "https://www.binance.com/en/terms",
    attribution: MARKET_ATTRIBUTION,
  },
  notice:
    "Prices are those of the latest trade seen on the stream, not bid/ask quotes; not investment advice.",
};

/** Seconds a buyer should wait when no tick is cached: the collector writes within a second of a trade. */
export const QUOTE_RETRY_AFTER_SEC = 30;

export const TickAnswer = z.object({
  ok: z.literal(true),
  symbol: z.enum(MARKET_SYMBOLS),
  price: z.number().positive().describe("Price of the latest trade, in USDT"),
  qty: z.number().nonnegative().describe("Quantity of the latest trade, in the base asset"),
  tradeTime: z.number().int().describe("Trade time, epoch milliseconds (Binance T)"),
  eventTime: z.number().int().describe("Event time, epoch milliseconds (Binance E)"),
  updatedAt: z.iso.datetime().describe("When this service received the trade"),
  stale: z.boolean().describe("True when updatedAt is older than the service's staleness bound"),
  ageMs: z.number().int().nonnegative().describe("Milliseconds since updatedAt"),
  source: z.string().describe("The stream URL the trade came from"),
  fetchedAt: z.iso.datetime().describe("When the collector last wrote the ticks"),
  notice: z.string(),
});

export type TickAnswerBody = z.infer<typeof TickAnswer>;

export function marketNotice(recordedSample: boolean): string {
  const text = `${MARKET_ATTRIBUTION} (public spot trade stream). ${MARKET_SOURCE.notice}`;
  if (!recordedSample) return text;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: these trades come from a recorded sample of Binance's documented stream " +
    `messages (UPSTREAMS=replay) and are placeholders, not market prices. ${text}`
  );
}

export function tickAnswer(
  tick: StoredTick,
  doc: CachedDocument<MarketSnapshot>,
  staleAfterMs: number,
  now = Date.now(),
): TickAnswerBody {
  const ageMs = Math.max(0, now - Date.parse(tick.updatedAt));
  return {
    ok: true,
    symbol: tick.symbol,
    price: tick.price,
    qty: tick.qty,
    tradeTime: tick.tradeTime,
    eventTime: tick.eventTime,
    updatedAt: tick.updatedAt,
    stale: ageMs > staleAfterMs,
    ageMs,
    source: doc.body.source,
    fetchedAt: doc.fetchedAt,
    notice: marketNotice(doc.recordedSample),
  };
}

export function tickOf(
  doc: CachedDocument<MarketSnapshot> | undefined,
  symbol: MarketSymbol,
): StoredTick | undefined {
  return doc?.body.ticks[symbol];
}
