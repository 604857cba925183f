// The five symbols this service collects (BTCUSDT, ETHUSDT, SOLUSDT, BNBUSDT, XRPUSDT), and the parsing of a buyer's symbol.
export const MARKET_SYMBOLS = ["BTCUSDT", "ETHUSDT", "SOLUSDT", "BNBUSDT", "XRPUSDT"] as const;
export type MarketSymbol = (typeof MARKET_SYMBOLS)[number];

const KNOWN = new Set<string>(MARKET_SYMBOLS);

export function isMarketSymbol(value: string): value is MarketSymbol {
  return KNOWN.has(value);
}

/** `BTCUSDT`, `btcusdt`, `BTC/USDT`, `btc-usdt` → "BTCUSDT"; the separators and case are forgiven. */
export function canonicalSymbol(raw: string): string {
  return raw.trim().toUpperCase().replace(/[/_-]/g, "");
}

/** The combined stream's names: "btcusdt@trade/ethusdt@trade/...". */
export const TRADE_STREAMS = MARKET_SYMBOLS.map((s) => `${s.toLowerCase()}@trade`).join("/");
