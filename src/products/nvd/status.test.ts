import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { FamilyTestContext } from "../../../test/family-harness.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import { NvdCoverageAnswer } from "./coverage.ts";
import {
  type LoopbackUpstream,
  openTestContext,
  recordedAnswer,
  runWarmerRecorded,
  startLoopbackUpstream,
  useFastNvdClient,
} from "./harness.test-helper.ts";
import { lookupCve } from "./lookup.ts";
import { createNvdRuntime, nvdWarmers, searchIndexTask } from "./runtime.ts";
import { nvdSettings } from "./settings.ts";
import { NvdStatusAnswer, statusProduct } from "./status.ts";

const API_KEY = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

const opened: Array<{ ctx: FamilyTestContext; upstream?: LoopbackUpstream }> = [];
after(async () => {
  for (const { ctx, upstream } of opened) {
    await ctx.close();
    await upstream?.close();
  }
});

function productOf(ctx: FamilyTestContext, sku: string): AnyProduct {
  return ctx.family.products.find((p) => p.sku === sku)!;
}

async function statusOf(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "nvd.status").handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return NvdStatusAnswer.parse(outcome.body);
}

async function coverageOf(ctx: FamilyTestContext) {
  const outcome = await productOf(ctx, "nvd.coverage").handle({ query: {}, body: undefined }, ctx);
  assert.equal(outcome.status, 200);
  return NvdCoverageAnswer.parse(outcome.body);
}

const warmer = (ctx: FamilyTestContext, name: string) => ctx.family.warmers!.find((w) => w.name === name)!;

describe("nvd.status and nvd.coverage", () => {
  it("are free, live products at the spec's paths", async () => {
    const ctx = await openTestContext();
    opened.push({ ctx });
    for (const [sku, path] of [
      ["nvd.status", "/v1/nvd/status"],
      ["nvd.coverage", "/v1/nvd/coverage"],
    ]) {
      const product = productOf(ctx, sku!);
      assert.equal(product.path, path);
      assert.equal(product.price, "0");
      assert.equal(product.status, "live");
    }
  });

  it("before any run: nothing synced, nothing fresh, the unkeyed rate limit", async () => {
    const ctx = await openTestContext();
    opened.push({ ctx });
    const status = await statusOf(ctx);
    assert.deepEqual(
      status.warmers.map((w) => [w.name, w.everyMs, w.runs, w.lastOk]),
      [
        ["nvd.sync", 2 * 3600_000, 0, null],
        ["nvd.kev", 24 * 3600_000, 0, null],
      ],
    );
    assert.equal(status.fresh, false);
    assert.equal(status.sync.syncedThrough, null);
    assert.equal(status.index.loaded, false);
    assert.equal(status.index.approximateBytes, 0);
    assert.deepEqual(status.rateLimit, { apiKey: false, requestsPer30s: 5, minIntervalMs: 6500 });
    assert.deepEqual(status.upstreams, { nvd: "https://services.nvd.nist.gov", kev: "https://www.cisa.gov" });
    assert.equal(status.mode, "replay");
    assert.equal(status.recentDays, 120);

    const coverage = await coverageOf(ctx);
    assert.deepEqual(coverage.window, { days: 120, from: null, to: null });
    assert.deepEqual(coverage.cves, { stored: 0, searchable: 0, bySeverity: {} });
    assert.equal(coverage.knownExploited.entries, 0);
  });

  it("after the sync, the KEV refresh and one lookup: counts, window, freshness and this node's index", async () => {
    const ctx = await openTestContext({ NVD_RECENT_DAYS: "90" });
    opened.push({ ctx });
    await runWarmerRecorded(warmer(ctx, "nvd.sync"), ctx);
    await runWarmerRecorded(warmer(ctx, "nvd.kev"), ctx);
    assert.equal(await lookupCve(ctx, nvdSettings({}), "CVE-2021-44228"), "stored");

    const coverage = await coverageOf(ctx);
    assert.deepEqual(coverage.window, {
      days: 90,
      from: "2026-08-22T09:12:44.027Z",
      to: "2026-11-20T09:12:44.027Z",
    });
    assert.deepEqual(coverage.cves, {
      stored: 7,
      searchable: 5,
      bySeverity: { CRITICAL: 1, HIGH: 2, MEDIUM: 1, unscored: 1 },
    });
    assert.deepEqual(
      [
        coverage.knownExploited.entries,
        coverage.knownExploited.stored,
        coverage.knownExploited.catalogVersion,
      ],
      [3, 2, "2026.11.20"],
    );
    assert.ok(coverage.sync.syncedThrough);
    assert.match(coverage.notice, /not endorsed or certified by the NVD/);

    const status = await statusOf(ctx);
    assert.equal(status.fresh, true);
    assert.deepEqual(
      status.warmers.map((w) => [w.name, w.runs, w.lastOk]),
      [
        ["nvd.sync", 1, true],
        ["nvd.kev", 1, true],
      ],
    );
    assert.equal(status.warmers[0]?.counts?.cves, 6);
    assert.deepEqual([status.index.loaded, status.index.documents], [true, 5]);
    assert.ok(status.index.tokens > 50);
    // Five records' ids and tokens: kilobytes, not nothing and not megabytes.
    assert.ok(status.index.approximateBytes > 1000 && status.index.approximateBytes < 100_000);
    assert.deepEqual([status.kev.entries, status.kev.catalogVersion], [3, "2026.11.20"]);
    assert.equal(status.sync.pending, null);
  });

  it("the worker's background task loads this node's index at start, before any buyer asks", async () => {
    const ctx = await openTestContext();
    opened.push({ ctx });
    await runWarmerRecorded(warmer(ctx, "nvd.sync"), ctx);
    const runtime = createNvdRuntime(nvdSettings({}));
    const before = await statusProduct(runtime).handle({ query: {}, body: undefined }, ctx);
    assert.equal(NvdStatusAnswer.parse(before.body).index.loaded, false);
    const task = searchIndexTask(runtime).start(ctx);
    await runtime.search.settled();
    await task.stop();
    const status = NvdStatusAnswer.parse(
      (await statusProduct(runtime).handle({ query: {}, body: undefined }, ctx)).body,
    );
    assert.deepEqual([status.index.loaded, status.index.documents], [true, 5]);
  });

  it("shows NVD's refusals, the failed run's error and the keyed rate limit, never the key", async () => {
    const upstream = await startLoopbackUpstream(() => recordedAnswer("cves-403-rate-limited"));
    const env = { UPSTREAMS: "live", NVD_BASE_URL: upstream.baseUrl, NVD_API_KEY: API_KEY };
    const ctx = await openTestContext(env);
    opened.push({ ctx, upstream });
    useFastNvdClient(ctx);
    const runtime = createNvdRuntime(nvdSettings(env));
    const sync = nvdWarmers(runtime).find((w) => w.name === "nvd.sync")!;
    await assert.rejects(runWarmerRecorded(sync, ctx), /over its rate limit \(HTTP 403\)/);

    const outcome = await statusProduct(runtime).handle({ query: {}, body: undefined }, ctx);
    const status = NvdStatusAnswer.parse(outcome.body);
    assert.equal(status.warmers[0]?.lastOk, false);
    assert.match(status.warmers[0]?.lastError ?? "", /resumes from .* on the next run/);
    assert.equal(status.sync.rateLimited.total, 3);
    assert.equal(status.sync.pending?.nextIndex, 0);
    assert.equal(status.fresh, false);
    assert.deepEqual(status.rateLimit, { apiKey: true, requestsPer30s: 50, minIntervalMs: 650 });
    assert.equal(status.upstreams.nvd, upstream.baseUrl);
    assert.equal(status.mode, "live");
    assert.ok(!JSON.stringify(status).includes(API_KEY), "the key is never shown");
  });
});
