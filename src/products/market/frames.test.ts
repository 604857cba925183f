import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../config.ts";
import { MarketQuoteQuery } from "./quote.ts";
import { MarketQuotesQuery } from "./quotes.ts";
import { combinedStreamUrl, readMarketSettings } from "./settings.ts";
import { TRADE_STREAMS } from "./symbols.ts";
import { TickBook } from "./tick-book.ts";
import { parseFrame } from "./trade-frame.ts";

const documented =
  '{"stream":"btcusdt@trade","data":{"e":"trade","E":1672515782136,"s":"BTCUSDT","t":12345,' +
  '"p":"16542.29000000","q":"0.00120000","T":1672515782136,"m":true,"M":true}}';

describe("trade frames", () => {
  it("reads the documented combined-stream trade, decimal strings as numbers", () => {
    assert.deepEqual(parseFrame(documented), {
      kind: "trade",
      trade: {
        symbol: "BTCUSDT",
        price: 16542.29,
        qty: 0.0012,
        tradeId: 12345,
        tradeTime: 1672515782136,
        eventTime: 1672515782136,
      },
    });
    // A raw (non-combined) payload is the same trade.
    assert.equal(parseFrame(JSON.stringify(JSON.parse(documented).data)).kind, "trade");
  });

  it("recognises the shutdown notice and ignores control replies", () => {
    assert.deepEqual(parseFrame('{"stream":"!serverShutdown","data":{"e":"serverShutdown","E":1}}'), {
      kind: "shutdown",
    });
    assert.deepEqual(parseFrame('{"result":null,"id":1}'), { kind: "other" });
  });

  it("rejects what is not a trade of the five symbols with decimal strings and integer times", () => {
    const data = JSON.parse(documented).data;
    const cases: Array<[unknown, RegExp]> = [
      ["{", /not JSON/],
      ["42", /not an object/],
      [{ ...data, s: "DOGEUSDT" }, /symbol DOGEUSDT/],
      [{ ...data, p: 16542.29 }, /decimal string/],
      [{ ...data, q: "abc" }, /decimal string/],
      [{ ...data, p: "" }, /decimal string/],
      [{ ...data, p: "0" }, /positive/],
      [{ ...data, q: "-1" }, /decimal string/],
      [{ ...data, p: "Infinity" }, /decimal string/],
      [{ ...data, T: "1672515782136" }, /integers/],
      [{ ...data, t: 1.5 }, /integers/],
    ];
    for (const [frame, reason] of cases) {
      const parsed = parseFrame(
        typeof frame === "string" ? frame : JSON.stringify({ stream: "x", data: frame }),
      );
      assert.equal(parsed.kind, "invalid", JSON.stringify(frame));
      assert.match((parsed as { reason: string }).reason, reason);
    }
  });
});

describe("the tick book", () => {
  it("keeps the latest trade per symbol, counts messages and marks itself dirty until a batch is taken", () => {
    const book = new TickBook();
    book.ingest(documented, 1000);
    book.ingest(documented.replace('"t":12345', '"t":12344').replace("16542.29", "1"), 1001);
    book.ingest('{"result":null,"id":1}', 1002);
    assert.equal(book.msgs, 2);
    assert.equal(book.lastMessageAt, 1002);
    assert.equal(book.dirty, true);
    const batch = book.takeBatch();
    assert.equal(book.dirty, false);
    assert.equal(batch.BTCUSDT?.price, 16542.29, "the older trade id did not replace the newer one");
    assert.equal(batch.BTCUSDT?.updatedAt, new Date(1000).toISOString());
  });
});

describe("market queries", () => {
  it("quote: one of the five symbols, forgiving case and a separator", () => {
    for (const symbol of ["BTCUSDT", "btcusdt", " BTC/USDT ", "btc-usdt"])
      assert.deepEqual(MarketQuoteQuery.parse({ symbol }), { symbol: "BTCUSDT" }, symbol);
    for (const [input, message] of [
      [{}, /symbol is required/],
      [{ symbol: "" }, /symbol is required/],
      [{ symbol: "DOGEUSDT" }, /one of BTCUSDT, ETHUSDT, SOLUSDT, BNBUSDT, XRPUSDT; got "DOGEUSDT"/],
      [{ symbol: "BTC" }, /one of/],
    ] as const) {
      const result = MarketQuoteQuery.safeParse(input);
      assert.equal(result.success, false);
      assert.equal(result.error!.issues[0]!.path.join("."), "symbol");
      assert.match(result.error!.issues[0]!.message, message);
    }
  });

  it("quotes: optional, comma-separated, deduplicated; an unknown or empty list is refused", () => {
    assert.equal(MarketQuotesQuery.parse({}).symbols, undefined);
    assert.deepEqual(MarketQuotesQuery.parse({ symbols: "ethusdt, BTCUSDT,ETH/USDT," }), {
      symbols: ["ETHUSDT", "BTCUSDT"],
    });
    for (const [symbols, message] of [
      ["", /list one or more/],
      [" , ", /list one or more/],
      ["BTCUSDT,DOGEUSDT", /got "DOGEUSDT"/],
    ] as const) {
      const result = MarketQuotesQuery.safeParse({ symbols });
      assert.equal(result.success, false, symbols);
      assert.equal(result.error!.issues[0]!.path.join("."), "symbols");
      assert.match(result.error!.issues[0]!.message, message);
    }
  });
});

describe("market settings", () => {
  it("builds the combined stream URL from a base or a full URL", () => {
    const full = `wss://stream.binance.com:9443/stream?streams=${TRADE_STREAMS}`;
    assert.equal(readMarketSettings({}).streamUrl, full);
    assert.equal(combinedStreamUrl("wss://stream.binance.com:9443/"), full);
    assert.equal(combinedStreamUrl("wss://stream.binance.com:9443/stream?streams=btcusdt@trade"), full);
    assert.equal(
      combinedStreamUrl("wss://data-stream.binance.vision"),
      `wss://data-stream.binance.vision/stream?streams=${TRADE_STREAMS}`,
    );
    assert.equal(
      combinedStreamUrl("ws://127.0.0.1:8080"),
      `ws://127.0.0.1:8080/stream?streams=${TRADE_STREAMS}`,
    );
  });

  it("defaults, and names the variable when a value is wrong", () => {
    const settings = readMarketSettings({});
    assert.equal(settings.collectorEnabled, true);
    assert.equal(settings.staleAfterMs, 60_000);
    assert.ok(settings.maxConnectionMs < 24 * 3600_000);
    assert.equal(settings.flushMs, 250);
    for (const [env, variable] of [
      [{ BINANCE_STREAM_URL: "https://stream.binance.com" }, "BINANCE_STREAM_URL"],
      [{ BINANCE_STREAM_URL: "not a url" }, "BINANCE_STREAM_URL"],
      [{ MARKET_STALE_AFTER_MS: "soon" }, "MARKET_STALE_AFTER_MS"],
      [{ MARKET_MAX_CONNECTION_MS: String(24 * 3600_000) }, "MARKET_MAX_CONNECTION_MS"],
      [{ MARKET_COLLECTOR: "maybe" }, "MARKET_COLLECTOR"],
    ] as const) {
      assert.throws(
        () => readMarketSettings(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
        JSON.stringify(env),
      );
    }
  });
});
