// End to end on loopback: the market family served alone with its collector on a loopback trade stream, and a
// real x402 buyer paying through the local facilitator.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { type StreamServer, startStreamServer, tradeFrame, until } from "./harness.test-helper.ts";
import { marketFamily } from "./index.ts";

let service: TestService;
let stream: StreamServer;
let stopCollector: () => Promise<void>;

before(async () => {
  stream = await startStreamServer();
  const env = { UPSTREAMS: "live", BINANCE_STREAM_URL: stream.url, MARKET_FLUSH_MS: "20" };
  const family = marketFamily(loadConfig(env));
  service = await startTestService(env, [family]);
  // The worker starts background tasks only with RUN_WARMERS=true; start the collector as it would.
  stopCollector = family.background![0]!.start(service.ctx).stop;
  await until(() => stream.open().length === 1, "the collector's connection");
});
after(async () => {
  await stopCollector();
  await service.stop();
  await stream.close();
});

test("before any trade: 404 not_cached before payment is asked", async () => {
  const response = await fetch(`${service.url}/v1/market/quote?symbol=BTCUSDT`);
  assert.equal(response.status, 404);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.error, "not_cached");
  assert.equal(body.charged, false);
  assert.equal(response.headers.get("payment-required"), null);
});

test("a buyer pays /v1/market/quote?symbol=btcusdt and gets the latest trade; one settled ledger row", async () => {
  stream.send(tradeFrame("BTCUSDT", "91234.56000000", "0.01000000"));
  stream.send(tradeFrame("BTCUSDT", "91235.00000000", "0.02000000"));
  await until(
    async () => (await fetch(`${service.url}/v1/market/quote?symbol=BTCUSDT`)).status === 402,
    "a tick",
  );
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const response = await payingFetch(buyer)(`${service.url}/v1/market/quote?symbol=btcusdt`);
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.symbol, "BTCUSDT");
  assert.equal(body.price, 91235);
  assert.equal(body.qty, 0.02);
  assert.equal(body.stale, false);
  assert.ok(response.headers.get("payment-response"));
  const rows = await service.store.ledger.list();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.sku, "market.quote");
  assert.equal(rows[0]?.state, "settled");
  assert.equal(rows[0]?.amount, "5000");
});

test("bad input is a 400 naming the parameter, before any payment is asked", async () => {
  const cases: Array<[string, string]> = [
    ["/v1/market/quote?symbol=", "symbol"],
    ["/v1/market/quote?symbol=DOGEUSDT", "symbol"],
    ["/v1/market/quote?symbol=BTCUSDT&symbol=ETHUSDT", "symbol"],
    ["/v1/market/quote?symbol=BTCUSDT&limit=1", "limit"],
    ["/v1/market/quotes?symbols=", "symbols"],
    ["/v1/market/quotes?symbols=BTCUSDT,LTCUSDT", "symbols"],
    ["/v1/market/quotes?symbol=BTCUSDT", "symbol"],
  ];
  for (const [path, parameter] of cases) {
    const response = await fetch(`${service.url}${path}`);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 400, path);
    assert.equal(body.parameter, parameter, path);
    assert.equal(body.charged, false);
    assert.equal(response.headers.get("payment-required"), null, path);
  }
});

test("the free status shows this node leading a connected collector", async () => {
  const status = (await (await fetch(`${service.url}/v1/market/status`)).json()) as {
    thisNode: string;
    collector: { connection: string; msgs: number };
  };
  assert.equal(status.thisNode, "leader");
  assert.equal(status.collector.connection, "connected");
  assert.equal(status.collector.msgs, 2);
});
