import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { type CollectorOptions, MarketCollector } from "./collector.ts";
import {
  openTestContext,
  productOf,
  type StreamServer,
  startStreamServer,
  tradeFrame,
  until,
} from "./harness.test-helper.ts";
import { QuotesAnswer } from "./quotes.ts";
import { combinedStreamUrl, readMarketSettings } from "./settings.ts";
import { COLLECTOR_LEASE, readSnapshotNow } from "./snapshot.ts";
import { MarketStatusAnswer } from "./status.ts";
import { TRADE_STREAMS } from "./symbols.ts";
import { TickAnswer } from "./ticks.ts";

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Fast timings so each behaviour shows within a fraction of a second. */
const FAST: Omit<CollectorOptions, "streamUrl"> = {
  flushMs: 20,
  silenceMs: 60_000,
  maxConnectionMs: 3_600_000,
  leaseTtlMs: 400,
  leaseRenewMs: 50,
  backoffBaseMs: 20,
  backoffMaxMs: 100,
};

async function setup(
  options: Partial<CollectorOptions> = {},
  env: Record<string, string> = {},
): Promise<{ server: StreamServer; ctx: FamilyTestContext; collector: MarketCollector }> {
  const server = await startStreamServer();
  const ctx = await openTestContext({ UPSTREAMS: "live", BINANCE_STREAM_URL: server.url, ...env });
  const settings = readMarketSettings(ctx.service.config.env);
  const collector = new MarketCollector(ctx, { streamUrl: settings.streamUrl, ...FAST, ...options });
  collector.start();
  cleanups.push(async () => {
    await collector.stop();
    await ctx.close();
    await server.close();
  });
  return { server, ctx, collector };
}

async function quote(ctx: FamilyTestContext, symbol: string) {
  const product = productOf(ctx, "market.quote");
  const input = { query: { symbol }, body: undefined };
  const problem = await product.check?.(input, ctx);
  return problem ?? (await product.handle(input, ctx));
}

async function status(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "market.status").handle({ query: {}, body: undefined }, ctx);
  return MarketStatusAnswer.parse(outcome.body);
}

describe("market collector on a loopback trade stream", () => {
  it("holds one connection to the combined stream of the five symbols; ticks are served in batches", async () => {
    const { server, ctx, collector } = await setup();
    await until(() => server.open().length === 1, "the connection");
    assert.equal(server.connections[0]!.url, `/stream?streams=${TRADE_STREAMS}`);

    const before = await quote(ctx, "BTCUSDT");
    assert.equal(before.status, 404);
    assert.equal(before.body.error, "not_cached");
    assert.equal(before.body.charged, false);

    for (let i = 1; i <= 300; i++) server.send(tradeFrame("BTCUSDT", `${90_000 + i}.50000000`, "0.00100000"));
    server.send(tradeFrame("ETHUSDT", "3050.10000000", "1.25000000"));
    server.send({ result: null, id: 1 });
    await until(async () => (await readSnapshotNow(ctx.store))?.body.msgs === 301, "301 trades written");

    const outcome = await quote(ctx, "BTCUSDT");
    assert.equal(outcome.status, 200);
    const body = TickAnswer.parse(outcome.body);
    assert.equal(body.symbol, "BTCUSDT");
    assert.equal(body.price, 90_300.5);
    assert.equal(body.qty, 0.001);
    assert.ok(Number.isInteger(body.tradeTime) && body.eventTime === body.tradeTime + 1);
    assert.equal(body.stale, false);
    assert.equal(body.source, `${server.url}/stream?streams=${TRADE_STREAMS}`);
    assert.match(body.notice, /^Source: Binance/);

    const quotes = await productOf(ctx, "market.quotes").handle(
      { query: { symbols: undefined }, body: undefined },
      ctx,
    );
    assert.equal(quotes.status, 200);
    const bundle = QuotesAnswer.parse(quotes.body);
    assert.deepEqual(bundle.symbols, ["BTCUSDT", "ETHUSDT"]);
    assert.equal(bundle.count, 2);
    assert.equal(bundle.msgs, 301);
    assert.ok(bundle.writes >= 1 && bundle.writes < 301 / 3, `${bundle.writes} batch writes for 301 trades`);
    assert.equal(bundle.quotes.ETHUSDT?.price, 3050.1);
    assert.equal(bundle.stream, TRADE_STREAMS);
    assert.deepEqual(bundle.missing, []);

    const some = await productOf(ctx, "market.quotes").handle(
      { query: { symbols: ["ETHUSDT", "XRPUSDT"] }, body: undefined },
      ctx,
    );
    const partial = QuotesAnswer.parse(some.body);
    assert.deepEqual(partial.symbols, ["ETHUSDT"]);
    assert.deepEqual(partial.missing, ["XRPUSDT"]);

    const state = await status(ctx);
    assert.equal(state.collector.leader, collector.holderId);
    assert.equal(state.collector.connection, "connected");
    assert.ok((state.collector.lastMessageAgeMs ?? Infinity) < 60_000);
    assert.equal(state.symbols.find((s) => s.symbol === "BTCUSDT")?.stale, false);
    assert.equal(state.symbols.find((s) => s.symbol === "SOLUSDT")?.cached, false);
  });

  it("keeps the newest trade when an older one arrives late, and ignores malformed frames", async () => {
    const { server, ctx, collector } = await setup();
    await until(() => server.open().length === 1, "the connection");
    const now = Date.now();
    server.send(tradeFrame("SOLUSDT", "150.00000000", "1.00000000", now));
    server.send(tradeFrame("SOLUSDT", "149.00000000", "1.00000000", now - 5000));
    server.send("not json");
    server.send({
      stream: "dogeusdt@trade",
      data: { e: "trade", s: "DOGEUSDT", p: "1", q: "1", T: 1, E: 1, t: 1 },
    });
    server.send({
      stream: "solusdt@trade",
      data: { e: "trade", s: "SOLUSDT", p: "-1", q: "1", T: 1, E: 1, t: 1 },
    });
    await until(() => collector.book.invalid === 3, "the malformed frames");
    await until(async () => (await quote(ctx, "SOLUSDT")).status === 200, "the SOL tick");
    assert.equal(TickAnswer.parse((await quote(ctx, "SOLUSDT")).body).price, 150);
  });

  it("answers the server's ping with a pong carrying the same payload (Node's WebSocket does it)", async () => {
    const { server } = await setup();
    await until(() => server.open().length === 1, "the connection");
    const socket = server.open()[0]!;
    const pong = new Promise<string>((resolve) => socket.once("pong", (data) => resolve(data.toString())));
    socket.ping(Buffer.from("binance-ping-1795190400000"));
    assert.equal(await pong, "binance-ping-1795190400000");
  });

  it("reconnects with backoff after the server drops the connection, and serves ticks from the new one", async () => {
    const { server, ctx } = await setup();
    await until(() => server.open().length === 1, "the connection");
    server.send(tradeFrame("BNBUSDT", "900.00000000"));
    await until(async () => (await quote(ctx, "BNBUSDT")).status === 200, "the first tick");
    server.open()[0]!.terminate();
    await until(() => server.connections.length === 2 && server.open().length === 1, "the reconnection");
    server.send(tradeFrame("BNBUSDT", "901.00000000"));
    await until(
      async () => TickAnswer.parse((await quote(ctx, "BNBUSDT")).body).price === 901,
      "the new tick",
    );
    const state = await status(ctx);
    assert.ok(state.collector.reconnects >= 1);
    assert.match(state.collector.lastError ?? "", /closed \(code 1006/);
  });

  it("flags a tick stale once older than MARKET_STALE_AFTER_MS, and reconnects after silence", async () => {
    const { server, ctx } = await setup({ silenceMs: 250 }, { MARKET_STALE_AFTER_MS: "150" });
    await until(() => server.open().length === 1, "the connection");
    server.send(tradeFrame("XRPUSDT", "2.18000000", "100.00000000"));
    await until(async () => (await quote(ctx, "XRPUSDT")).status === 200, "the tick");
    await until(async () => TickAnswer.parse((await quote(ctx, "XRPUSDT")).body).stale, "the stale flag");
    const stale = TickAnswer.parse((await quote(ctx, "XRPUSDT")).body);
    assert.ok(stale.ageMs > 150);
    await until(() => server.connections.length >= 2, "a reconnection after silence");
    // The status reads the collector's snapshot, which is written on its own beat after the reconnection.
    await until(
      async () => /no message for \d+ ms/.test((await status(ctx)).collector.lastError ?? ""),
      "the silence in the status",
    );
    const state = await status(ctx);
    assert.equal(state.symbols.find((s) => s.symbol === "XRPUSDT")?.stale, true);
  });

  it("opens a new connection before closing the old one on serverShutdown and near the 24-hour limit", async () => {
    const { server, ctx } = await setup();
    await until(() => server.open().length === 1, "the connection");
    server.send({ stream: "!serverShutdown", data: { e: "serverShutdown", E: Date.now() } });
    await until(() => server.connections.length === 2 && server.connections[0]!.closed, "the replacement");
    assert.equal(server.open().length, 1);
    server.send(tradeFrame("ETHUSDT", "3000.00000000"));
    await until(async () => (await quote(ctx, "ETHUSDT")).status === 200, "a tick on the new connection");

    const rotating = await setup({ maxConnectionMs: 200 });
    await until(() => rotating.server.connections.length >= 3, "two proactive renewals");
    assert.ok(rotating.server.open().length <= 2);
    await until(() => rotating.server.connections[0]!.closed, "the first connection closed");
  });
});

describe("a stream that never completes the handshake", () => {
  it("gives up on the connect after silenceMs and tries again", async () => {
    const accepted: net.Socket[] = [];
    const tcp = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    const ctx = await openTestContext({ UPSTREAMS: "live" });
    const url = combinedStreamUrl(`ws://127.0.0.1:${(tcp.address() as net.AddressInfo).port}`);
    const collector = new MarketCollector(ctx, { streamUrl: url, ...FAST, silenceMs: 150 });
    collector.start();
    cleanups.push(async () => {
      await collector.stop();
      await ctx.close();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => tcp.close(resolve));
    });
    await until(() => accepted.length >= 2, "a second attempt");
    assert.equal(collector.connection, "reconnecting");
    await until(
      async () => /no connection within 150 ms/.test((await status(ctx)).collector.lastError ?? ""),
      "the reason in the status",
    );
  });
});

describe("leader election across nodes", () => {
  it("only the lease holder connects and writes; the other takes over when it stops", async () => {
    // A lease that cannot lapse while this test runs, however starved the machine: node-b must take over
    // because node-a releases it on stopping, not because a renewal came late.
    const lease = { leaseTtlMs: 120_000 };
    const { server, ctx, collector: first } = await setup({ holderId: "node-a", ...lease });
    await until(() => first.role === "leader", "node-a leading");
    const settings = readMarketSettings(ctx.service.config.env);
    // A second node sharing the same store.
    const second = new MarketCollector(ctx, {
      streamUrl: settings.streamUrl,
      ...FAST,
      ...lease,
      holderId: "node-b",
    });
    second.start();
    cleanups.push(() => second.stop());
    await until(() => server.open().length === 1, "one connection");
    // Several lease renewals later, node-b is still standing by and has not connected.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(second.role, "standby");
    assert.equal(server.connections.length, 1);
    assert.equal(await ctx.store.leases.holder(COLLECTOR_LEASE), "node-a");
    server.send(tradeFrame("BTCUSDT", "91000.00000000"));
    await until(async () => (await readSnapshotNow(ctx.store))?.body.msgs === 1, "node-a's write");
    assert.equal((await readSnapshotNow(ctx.store))?.body.holder, "node-a");
    assert.equal(
      (await status(ctx)).thisNode,
      "not-running",
      "the status product of this test family has no local collector",
    );

    await first.stop();
    await until(() => second.role === "leader" && server.open().length === 1, "node-b taking over");
    assert.equal(server.connections.length, 2);
    server.send(tradeFrame("BTCUSDT", "91001.00000000"));
    await until(
      async () => (await readSnapshotNow(ctx.store))?.body.msgs === 2,
      "node-b continuing the counters",
    );
    const snap = (await readSnapshotNow(ctx.store))!.body;
    assert.equal(snap.holder, "node-b");
    assert.equal(snap.ticks.BTCUSDT?.price, 91001);
    assert.equal((await status(ctx)).collector.leader, "node-b");
  });

  it("a leader whose lease is taken over stops writing and disconnects", async () => {
    const { server, ctx, collector } = await setup({
      holderId: "node-a",
      leaseTtlMs: 200,
      leaseRenewMs: 5000,
    });
    await until(() => collector.role === "leader" && server.open().length === 1, "node-a leading");
    // node-a's renewals stall (renewing only every 5 s); its 200 ms lease runs out and node-c takes it.
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await ctx.store.leases.acquire(COLLECTOR_LEASE, "node-c", 60_000), true);
    // node-a learns it at its next renewal; force one instead of waiting 5 s.
    await (collector as unknown as { checkLeadership: () => Promise<void> }).checkLeadership();
    assert.equal(collector.role, "standby");
    await until(() => server.open().length === 0, "node-a disconnecting");
  });
});
