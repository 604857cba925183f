import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openTestStore } from "../../test/test-store.ts";
import { familyContext, type ServiceContext } from "../catalog/family-context.ts";
import type { Family, HandlerContext, JobHandler, Warmer } from "../catalog/product.ts";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { UpstreamBudgetError } from "../upstream/client.ts";
import { UpstreamRegistry } from "../upstream/registry.ts";
import { Worker } from "./worker.ts";

const MIN = 60_000;

let dir: string;
let ctx: ServiceContext;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-worker-"));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", WORKER_POLL_MS: "10" });
  ctx = {
    config,
    store: await openTestStore(),
    upstreams: new UpstreamRegistry(config, undefined),
    log: createLogger("silent"),
  };
});

afterEach(async () => {
  await ctx.store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function family(parts: { warmers?: Warmer[]; jobs?: Record<string, JobHandler> }): Family {
  return { name: "testfam", products: [], ...parts };
}

function countingWarmer(name: string, everyMs: number, outcome: () => Record<string, unknown>) {
  const calls: HandlerContext[] = [];
  const warmer: Warmer = {
    name,
    everyMs,
    run: async (c) => {
      calls.push(c);
      return outcome();
    },
  };
  return { warmer, calls };
}

describe("Worker.drain", () => {
  test("runs the queued jobs of registered queues with their payloads and completes them", async () => {
    const seen: Array<[string, unknown]> = [];
    const worker = new Worker(
      ctx,
      [
        family({
          jobs: {
            fetch: async (payload, c) => {
              assert.equal(c, familyContext(ctx));
              seen.push(["fetch", payload]);
            },
          },
        }),
      ],
      { reconcile: async (payload) => void seen.push(["reconcile", payload]) },
    );
    await ctx.store.jobs.enqueue("fetch", "a", { id: "a" });
    await ctx.store.jobs.enqueue("fetch", "b", { id: "b" });
    await ctx.store.jobs.enqueue("reconcile", "r", { ledgerId: 3 });
    await ctx.store.jobs.enqueue("unhandled", "x", { id: "x" });

    assert.equal(await worker.drain(), 3);
    assert.deepEqual(
      seen.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        ["fetch", { id: "a" }],
        ["fetch", { id: "b" }],
        ["reconcile", { ledgerId: 3 }],
      ],
    );
    assert.deepEqual(await ctx.store.jobs.counts("fetch"), { queued: 0, running: 0, done: 2, dead: 0 });
    assert.equal((await ctx.store.jobs.get("reconcile", "r"))?.state, "done");
    const untouched = await ctx.store.jobs.get("unhandled", "x");
    assert.equal(untouched?.state, "queued");
    assert.equal(untouched?.attempts, 0);
    assert.equal(await worker.drain(), 0);
  });

  test("a job whose handler throws stays queued for a later retry with its error", async () => {
    let calls = 0;
    const worker = new Worker(ctx, [
      family({
        jobs: {
          fetch: async () => {
            calls++;
            throw new Error("upstream said no");
          },
        },
      }),
    ]);
    await ctx.store.jobs.enqueue("fetch", "a", {});
    const before = Date.now();
    assert.equal(await worker.drain(), 1);
    assert.equal(calls, 1, "a failed job is not retried within the same drain");
    const job = await ctx.store.jobs.get("fetch", "a");
    assert.equal(job?.state, "queued");
    assert.equal(job?.attempts, 1);
    assert.equal(job?.last_error, "upstream said no");
    assert.ok(Date.parse(job!.run_at) >= before + 1000, `retry at ${job!.run_at} is not in the future`);
    assert.equal(await worker.drain(), 0);
  });

  test("a job whose upstream is paused waits for the pause to end, its attempt not counted", async () => {
    const until = new Date(Date.now() + 10 * MIN);
    const worker = new Worker(ctx, [
      family({
        jobs: {
          fetch: async () => {
            throw new UpstreamBudgetError(
              "sec",
              until.getTime(),
              "paused",
              "SEC blocks requests after a 429",
            );
          },
        },
      }),
    ]);
    await ctx.store.jobs.enqueue("fetch", "a", {});
    assert.equal(await worker.drain(), 1);
    const job = await ctx.store.jobs.get("fetch", "a");
    assert.equal(job?.state, "queued");
    assert.equal(job?.attempts, 0, "a pause is not the job's failure: it never goes dead for it");
    assert.equal(job?.run_at, until.toISOString());
    assert.match(job?.last_error ?? "", /SEC blocks requests/);
  });

  test("a job that keeps failing ends up dead", async () => {
    const worker = new Worker(ctx, [
      family({
        jobs: {
          fetch: async () => {
            throw "a plain string";
          },
        },
      }),
    ]);
    await ctx.store.jobs.enqueue("fetch", "a", {}, { maxAttempts: 1 });
    assert.equal(await worker.drain(), 1);
    const dead = await ctx.store.jobs.dead("fetch");
    assert.deepEqual(
      dead.map((j) => [j.key, j.last_error]),
      [["a", "a plain string"]],
    );
  });
});

describe("Worker.runWarmer", () => {
  test("records a successful run with its counts", async () => {
    const { warmer, calls } = countingWarmer("rates", 60 * MIN, () => ({ rows: 42, source: "ecb" }));
    const worker = new Worker(ctx, [family({ warmers: [warmer] })]);
    assert.deepEqual(await worker.runWarmer("rates"), { rows: 42, source: "ecb" });
    assert.equal(calls.length, 1);
    assert.equal(calls[0], familyContext(ctx));
    // The family's part of the store: no ledger, nonce claims, refunds or sales, and no raw database.
    assert.deepEqual(Object.keys(calls[0]!.store).sort(), [
      "cache",
      "jobs",
      "kind",
      "leases",
      "tables",
      "upstreamBudgets",
      "warmerRuns",
    ]);
    const status = await ctx.store.warmerRuns.status("rates");
    assert.equal(status.runs, 1);
    assert.equal(status.lastOk, true);
    assert.deepEqual(status.counts, { rows: 42, source: "ecb" });
    assert.ok(status.lastSuccessAt);
    assert.equal(status.lastError, null);
  });

  test("records a failed run with its error and rethrows", async () => {
    const worker = new Worker(ctx, [
      family({
        warmers: [
          {
            name: "rates",
            everyMs: MIN,
            run: async () => {
              throw new Error("feed unavailable");
            },
          },
        ],
      }),
    ]);
    await assert.rejects(worker.runWarmer("rates"), /feed unavailable/);
    const status = await ctx.store.warmerRuns.status("rates");
    assert.equal(status.runs, 1);
    assert.equal(status.lastOk, false);
    assert.equal(status.lastError, "feed unavailable");
    assert.equal(status.lastSuccessAt, null);
    assert.equal(status.counts, null);
  });

  test("an unknown warmer is an error and records nothing", async () => {
    const worker = new Worker(ctx, []);
    await assert.rejects(worker.runWarmer("nope"), /unknown warmer nope/);
    assert.equal((await ctx.store.warmerRuns.status("nope")).runs, 0);
  });
});

describe("Worker.scheduleWarmers", () => {
  const NOW = new Date("2025-03-01T12:00:00.000Z");
  const ago = (ms: number) => new Date(NOW.getTime() - ms);

  async function recordRun(name: string, startedAgo: number, ok: boolean) {
    const id = await ctx.store.warmerRuns.start(name, ago(startedAgo));
    await ctx.store.warmerRuns.finish(
      id,
      ok ? { ok: true, counts: { n: 1 } } : { ok: false, error: "failed" },
      ago(startedAgo - 1000),
    );
  }

  test("enqueues only the warmers that are due", async () => {
    const names = [
      "never-ran",
      "fresh",
      "stale",
      "failed-long-ago",
      "failed-recently",
      "stale-but-retried-recently",
      "short-period-recent-success",
    ];
    const periods: Record<string, number> = { "short-period-recent-success": MIN };
    const worker = new Worker(ctx, [
      family({ warmers: names.map((n) => countingWarmer(n, periods[n] ?? 60 * MIN, () => ({})).warmer) }),
    ]);
    await recordRun("fresh", 30 * MIN, true);
    await recordRun("stale", 2 * 60 * MIN, true);
    await recordRun("failed-long-ago", 20 * MIN, false);
    await recordRun("failed-recently", 5 * MIN, false);
    await recordRun("stale-but-retried-recently", 3 * 60 * MIN, true);
    await recordRun("stale-but-retried-recently", 5 * MIN, false);
    await recordRun("short-period-recent-success", 5 * MIN, true);

    const enqueued = await worker.scheduleWarmers(NOW);
    assert.deepEqual(enqueued.sort(), ["failed-long-ago", "never-ran", "stale"]);
    const job = await ctx.store.jobs.get("warmer", "never-ran");
    assert.equal(job?.state, "queued");
    assert.deepEqual(JSON.parse(job!.payload), { warmer: "never-ran" });
    assert.equal(job?.run_at, NOW.toISOString());
    assert.equal(await ctx.store.jobs.get("warmer", "fresh"), undefined);
    assert.equal(await ctx.store.jobs.get("warmer", "failed-recently"), undefined);
    assert.deepEqual(await ctx.store.jobs.counts("warmer"), { queued: 3, running: 0, done: 0, dead: 0 });
  });

  test("a warmer already queued is not enqueued twice", async () => {
    const worker = new Worker(ctx, [family({ warmers: [countingWarmer("w", MIN, () => ({})).warmer] })]);
    assert.deepEqual(await worker.scheduleWarmers(NOW), ["w"]);
    assert.deepEqual(await worker.scheduleWarmers(new Date(NOW.getTime() + 1000)), []);
    assert.equal((await ctx.store.jobs.counts("warmer")).queued, 1);
  });

  test("a warmer becomes due again once its period has passed since its last success", async () => {
    const worker = new Worker(ctx, [family({ warmers: [countingWarmer("w", 60 * MIN, () => ({})).warmer] })]);
    const id = await ctx.store.warmerRuns.start("w", NOW);
    await ctx.store.warmerRuns.finish(id, { ok: true, counts: {} }, NOW);
    assert.deepEqual(await worker.scheduleWarmers(new Date(NOW.getTime() + 59 * MIN)), []);
    assert.deepEqual(await worker.scheduleWarmers(new Date(NOW.getTime() + 61 * MIN)), ["w"]);
  });
});

describe("Worker: warmer jobs", () => {
  test("a queued 'warmer' job runs the named warmer through drain()", async () => {
    const a = countingWarmer("a", 60 * MIN, () => ({ rows: 1 }));
    const b = countingWarmer("b", 60 * MIN, () => ({ rows: 2 }));
    const worker = new Worker(ctx, [family({ warmers: [a.warmer, b.warmer] })]);
    await ctx.store.jobs.enqueue("warmer", "b", { warmer: "b" });
    assert.equal(await worker.drain(), 1);
    assert.equal(a.calls.length, 0);
    assert.equal(b.calls.length, 1);
    assert.equal((await ctx.store.jobs.get("warmer", "b"))?.state, "done");
    const status = await ctx.store.warmerRuns.status("b");
    assert.equal(status.lastOk, true);
    assert.deepEqual(status.counts, { rows: 2 });
  });

  test("scheduled warmers are run by the next drain", async () => {
    const a = countingWarmer("a", 60 * MIN, () => ({ rows: 1 }));
    const worker = new Worker(ctx, [family({ warmers: [a.warmer] })]);
    assert.deepEqual(await worker.scheduleWarmers(new Date()), ["a"]);
    assert.equal(await worker.drain(), 1);
    assert.equal(a.calls.length, 1);
    // it just succeeded, so it is not due again
    assert.deepEqual(await worker.scheduleWarmers(new Date()), []);
  });

  test("a 'warmer' job naming an unknown warmer fails with that error", async () => {
    const worker = new Worker(ctx, []);
    await ctx.store.jobs.enqueue("warmer", "ghost", { warmer: "ghost" });
    assert.equal(await worker.drain(), 1);
    const job = await ctx.store.jobs.get("warmer", "ghost");
    assert.equal(job?.state, "queued");
    assert.equal(job?.last_error, "unknown warmer ghost");
  });

  test("a failed warmer job is not started again within 10 minutes of its start", async () => {
    const worker = new Worker(ctx, [
      family({
        warmers: [
          {
            name: "flaky",
            everyMs: 60 * MIN,
            run: async () => {
              throw new Error("upstream 503");
            },
          },
        ],
      }),
    ]);
    const started = Date.now();
    await ctx.store.jobs.enqueue("warmer", "flaky", { warmer: "flaky" });
    await worker.drain();
    const job = await ctx.store.jobs.get("warmer", "flaky");
    assert.equal(job?.last_error, "upstream 503");
    const retryAt = job?.state === "queued" ? Date.parse(job.run_at) : Number.POSITIVE_INFINITY;
    assert.ok(
      retryAt >= started + 10 * MIN,
      `the warmer job is due again ${Math.round((retryAt - started) / 1000)} s after it started`,
    );
  });
});

describe("Worker.start and stop", () => {
  test("start() drains queued jobs and schedules warmers; stop() ends the loop", async () => {
    const handled: unknown[] = [];
    const a = countingWarmer("a", 60 * MIN, () => ({ rows: 1 }));
    const worker = new Worker(ctx, [
      family({ warmers: [a.warmer], jobs: { fetch: async (p) => void handled.push(p) } }),
    ]);
    await ctx.store.jobs.enqueue("fetch", "k", { id: 1 });
    worker.start();
    try {
      const deadline = Date.now() + 2000;
      while ((handled.length < 1 || a.calls.length < 1) && Date.now() < deadline) await sleep(10);
      assert.deepEqual(handled, [{ id: 1 }]);
      assert.equal(a.calls.length, 1);
    } finally {
      await worker.stop();
    }
    await ctx.store.jobs.enqueue("fetch", "later", { id: 2 });
    await sleep(50);
    assert.deepEqual(handled, [{ id: 1 }], "a stopped worker runs nothing more");
    assert.equal((await ctx.store.jobs.get("fetch", "later"))?.state, "queued");
  });
});

describe("Worker.purge", () => {
  test("drops finished jobs and payment claims older than a week, keeps recent ones", async () => {
    const now = new Date();
    const eightDaysAgo = new Date(now.getTime() - 8 * 24 * 3600_000);
    await ctx.store.jobs.enqueue("q", "old", null, {}, eightDaysAgo);
    const job = await ctx.store.jobs.claim(["q"], 60_000, eightDaysAgo);
    assert.ok(job);
    await ctx.store.jobs.complete(job.id, eightDaysAgo);
    await ctx.store.nonces.claim("old-claim", "sku", eightDaysAgo);
    await ctx.store.nonces.claim("new-claim", "sku", now);
    await new Worker(ctx, []).purge(now);
    assert.equal(await ctx.store.jobs.get("q", "old"), undefined);
    assert.equal(await ctx.store.nonces.claim("old-claim", "sku", now), true);
    assert.equal(await ctx.store.nonces.claim("new-claim", "sku", now), false);
  });
});
