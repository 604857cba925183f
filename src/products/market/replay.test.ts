import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { openTestContext, productOf, until } from "./harness.test-helper.ts";
import { COLLECTOR_TASK, MARKET_RECORDINGS_DIR } from "./index.ts";
import { QuotesAnswer } from "./quotes.ts";
import { readSnapshotNow } from "./snapshot.ts";
import { MarketStatusAnswer } from "./status.ts";
import { TickAnswer } from "./ticks.ts";

const frames = fs
  .readFileSync(path.join(MARKET_RECORDINGS_DIR, "trade-stream.ndjson"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as { data: { s: string; p: string; T: number } });

describe("the collector under UPSTREAMS=replay", () => {
  let ctx: FamilyTestContext;
  let stop: () => Promise<void>;
  before(async () => {
    ctx = await openTestContext({ MARKET_STALE_AFTER_MS: "3600000" });
    const task = ctx.family.background?.find((t) => t.name === COLLECTOR_TASK);
    assert.ok(task, "the family declares its collector as a background task");
    stop = task.start(ctx).stop;
    await until(async () => (await readSnapshotNow(ctx.store))?.body.msgs === frames.length, "the replay");
  });
  after(async () => {
    await stop();
    await ctx.close();
  });

  it("plays the recorded frames once through the same parser, marked as a recorded sample", async () => {
    const last = frames.filter((f) => f.data.s === "BTCUSDT").at(-1)!.data;
    const outcome = await productOf(ctx, "market.quote").handle(
      { query: { symbol: "BTCUSDT" }, body: undefined },
      ctx,
    );
    assert.equal(outcome.status, 200);
    const body = TickAnswer.parse(outcome.body);
    assert.equal(body.price, Number(last.p));
    assert.equal(body.tradeTime, last.T);
    assert.match(body.notice, /RECORDED SAMPLE, NOT LIVE DATA/);

    const bundle = QuotesAnswer.parse(
      (await productOf(ctx, "market.quotes").handle({ query: {}, body: undefined }, ctx)).body,
    );
    assert.deepEqual(bundle.symbols, ["BTCUSDT", "ETHUSDT", "SOLUSDT", "BNBUSDT", "XRPUSDT"]);
    assert.equal(bundle.msgs, 30);
  });

  it("the status says so", async () => {
    const status = MarketStatusAnswer.parse(
      (await productOf(ctx, "market.status").handle({ query: {}, body: undefined }, ctx)).body,
    );
    assert.equal(status.collector.connection, "replay");
    assert.equal(status.thisNode, "leader");
    assert.equal(status.recordedSample, true);
    assert.equal(status.mode, "replay");
    assert.ok(status.symbols.every((s) => s.cached && !s.stale));
  });
});

describe("MARKET_COLLECTOR=false", () => {
  it("declares no collector; the status says this node's collector is disabled", async () => {
    const ctx = await openTestContext({ MARKET_COLLECTOR: "false" });
    try {
      assert.deepEqual(ctx.family.background, []);
      const status = MarketStatusAnswer.parse(
        (await productOf(ctx, "market.status").handle({ query: {}, body: undefined }, ctx)).body,
      );
      assert.equal(status.thisNode, "disabled");
      assert.equal(status.collector.connection, "no-collector");
      assert.equal(status.collector.leader, null);
      assert.ok(status.symbols.every((s) => !s.cached && s.stale));
    } finally {
      await ctx.close();
    }
  });
});
