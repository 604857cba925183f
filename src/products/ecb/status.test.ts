import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "./harness.test-helper.ts";
import { EcbStatusAnswer, ecbStatus } from "./status.ts";
import { ecbFxWarmer } from "./warmer.ts";

async function statusOf(ctx: FamilyTestContext) {
  const outcome = await ecbStatus.handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return EcbStatusAnswer.parse(outcome.body);
}

describe("macro.ecb.status", () => {
  const opened: Array<{ ctx: FamilyTestContext; upstream?: LoopbackUpstream }> = [];
  after(async () => {
    for (const { ctx, upstream } of opened) {
      await ctx.close();
      await upstream?.close();
    }
  });

  /** A live context whose ECB is a loopback server giving the one answer. */
  async function failingUpstream(status: number, headers: Record<string, string>, body: string) {
    const upstream = await startLoopbackUpstream(() => ({ status, headers, body }));
    const ctx = await openTestContext({ UPSTREAMS: "live", ECB_BASE_URL: upstream.baseUrl }).catch(
      async (error) => {
        await upstream.close();
        throw error;
      },
    );
    opened.push({ ctx, upstream });
    return { ctx, upstream };
  }

  it("is a free, live product", () => {
    assert.equal(ecbStatus.sku, "macro.ecb.status");
    assert.equal(ecbStatus.path, "/v1/macro/ecb/status");
    assert.equal(ecbStatus.price, "0");
    assert.equal(ecbStatus.status, "live");
  });

  it("reports a warmer that has never run", async () => {
    const ctx = await openTestContext();
    opened.push({ ctx });
    const status = await statusOf(ctx);
    assert.equal(status.warmer.name, "ecb.fx");
    assert.equal(status.warmer.runs, 0);
    assert.equal(status.warmer.lastRunAt, null);
    assert.equal(status.warmer.lastOk, null);
    assert.equal(status.currencies, 0);
    assert.equal(status.latestDate, null);
    assert.equal(status.fresh, false);
    assert.equal(status.mode, "replay");
    assert.equal(status.upstream, "https://data-api.ecb.europa.eu");
    assert.ok(Date.now() - Date.parse(status.generatedAt) < 60_000);
  });

  it("reflects a successful run: counts, currencies, latest date, fresh", async () => {
    const ctx = await openTestContext();
    opened.push({ ctx });
    await runWarmerRecorded(ecbFxWarmer, ctx);
    const status = await statusOf(ctx);
    assert.equal(status.warmer.runs, 1);
    assert.equal(status.warmer.lastOk, true);
    assert.ok(status.warmer.lastSuccessAt);
    assert.equal(status.warmer.lastError, null);
    assert.deepEqual(status.warmer.counts, { currencies: 23, observations: 1610, latestDate: "2026-11-20" });
    assert.equal(status.currencies, 23);
    assert.equal(status.latestDate, "2026-11-20");
    assert.equal(status.recordedSample, true);
    assert.equal(status.fresh, true);
  });

  it("shows the last error when the ECB answers 500 and asks to come back much later", async () => {
    const started = Date.now();
    const { ctx, upstream } = await failingUpstream(500, { "retry-after": "3600" }, "Internal Server Error");
    await assert.rejects(runWarmerRecorded(ecbFxWarmer, ctx), /ecb: asked to retry after 3600 s/);
    assert.equal(upstream.requests.length, 1);
    const status = await statusOf(ctx);
    assert.equal(status.warmer.lastOk, false);
    assert.match(status.warmer.lastError ?? "", /retry after 3600 s/);
    assert.ok(status.warmer.lastErrorAt);
    assert.equal(status.warmer.lastSuccessAt, null);
    assert.equal(status.fresh, false);
    assert.equal(status.currencies, 0);
    assert.equal(status.mode, "live");
    assert.equal(status.upstream, upstream.baseUrl);
    assert.ok(Date.now() - started < 2000, "the failure is reported at once");
  });

  it("shows the last error when the ECB answers 404 with no data", async () => {
    const { ctx } = await failingUpstream(404, { "content-type": "text/plain" }, "No results found.");
    await assert.rejects(runWarmerRecorded(ecbFxWarmer, ctx), /HTTP 404 .*No results found/);
    const status = await statusOf(ctx);
    assert.match(status.warmer.lastError ?? "", /HTTP 404/);
  });

  it("shows the last error when the ECB answers an HTML page with status 200", async () => {
    const { ctx } = await failingUpstream(
      200,
      { "content-type": "text/html" },
      "<html><body>Maintenance</body></html>",
    );
    await assert.rejects(runWarmerRecorded(ecbFxWarmer, ctx), /HTML or XML, not CSV/);
    const status = await statusOf(ctx);
    assert.equal(status.warmer.lastOk, false);
    assert.match(status.warmer.lastError ?? "", /not CSV/);
    assert.equal(status.currencies, 0);
  });
});
