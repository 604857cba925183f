import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import { openTestContext, runWarmerRecorded } from "./harness.test-helper.ts";
import { EdgarStatusAnswer } from "./status.ts";

describe("edgar.status", () => {
  let ctx: FamilyTestContext;
  before(async () => {
    ctx = await openTestContext();
  });
  after(() => ctx.close());

  const status = async () => {
    const product = ctx.family.products.find((p) => p.path === "/v1/edgar/status")!;
    assert.equal(product.price, "0");
    const outcome = await product.handle({ query: {}, body: undefined }, ctx);
    assert.equal(outcome.status, 200);
    return EdgarStatusAnswer.parse(outcome.body);
  };

  it("says nothing is cached before the warmers ran", async () => {
    const body = await status();
    assert.deepEqual(
      body.warmers.map((w) => [w.name, w.runs, w.lastOk]),
      [
        ["edgar.tickers", 0, null],
        ["edgar.companies", 0, null],
      ],
    );
    assert.deepEqual(body.tickers, {
      count: 0,
      fetchedAt: null,
      recordedSample: false,
      index: { loaded: false, tickers: 0, companies: 0, approximateBytes: 0, builtAt: null, buildMs: null },
    });
    assert.deepEqual(body.companies, {
      configured: ["AAPL", "MSFT", "JNJ"],
      cached: 0,
      withFinancials: 0,
      filingsIndexed: 0,
    });
    assert.equal(body.fresh, false);
    assert.equal(body.mode, "replay");
    assert.deepEqual(body.fairAccess, { maxRequestsPerSecond: 8, userAgentDeclared: true });
    assert.deepEqual(body.upstreams, { data: "https://data.sec.gov", www: "https://www.sec.gov" });
  });

  it("reports the warmers' counts and what is cached after they ran", async () => {
    for (const warmer of ctx.family.warmers ?? []) await runWarmerRecorded(warmer, ctx);
    const body = await status();
    assert.equal(body.fresh, true);
    assert.deepEqual(body.warmers[0]?.counts, { tickers: 20, companies: 18 });
    assert.deepEqual(body.warmers[1]?.counts, {
      refreshed: 3,
      withFinancials: 3,
      filings: 35,
      failed: [],
      queuedRefreshes: 0,
    });
    assert.equal(body.tickers.count, 20);
    assert.equal(body.tickers.recordedSample, true);
    // The companies warmer looked the configured tickers up in this node's directory, which built it.
    const { index } = body.tickers;
    assert.deepEqual([index.loaded, index.tickers, index.companies], [true, 20, 18]);
    assert.ok(index.approximateBytes > 20 * 100 && index.approximateBytes < 100_000);
    assert.deepEqual(body.companies, {
      configured: ["AAPL", "MSFT", "JNJ"],
      cached: 3,
      withFinancials: 3,
      filingsIndexed: 35,
    });
    assert.deepEqual(body.queues.company, { queued: 0, running: 0, done: 0, dead: 0 });
  });
});
