import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openTestStore, TEST_DATABASE_URL, testDatabase } from "../../test/test-store.ts";
import type { ServiceContext } from "../catalog/family-context.ts";
import { type Family, type JobHandler, type JobRun, jobKind } from "../catalog/product.ts";
import { loadConfig } from "../config.ts";
import { createLogger } from "../log.ts";
import { openStore, type Store } from "../store/store.ts";
import { UpstreamRegistry } from "../upstream/registry.ts";
import { Worker } from "./worker.ts";

let dir: string;
/** Closed (and a PostgreSQL schema dropped) after each test. */
const stores: Array<Pick<Store, "close">> = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-lanes-"));
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function context(store: Store, env: Record<string, string> = {}): ServiceContext {
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", WORKER_POLL_MS: "10", ...env });
  return { config, store, upstreams: new UpstreamRegistry(config, undefined), log: createLogger("silent") };
}

async function testStore(): Promise<Store> {
  const store = await openTestStore();
  stores.push(store);
  return store;
}

function family(jobs: Record<string, JobHandler>): Family {
  return { name: "testfam", products: [], jobs };
}

/** A promise with its resolve, for jobs that run until the test lets them finish. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await sleep(10);
  }
}

describe("Worker lanes", () => {
  test("a buyer's fetch is served while a long bulk import is still running", async () => {
    const store = await testStore();
    const ctx = context(store, { WORKER_BULK_CONCURRENCY: "1", WORKER_FETCH_CONCURRENCY: "1" });
    const importGate = gate();
    let importFinished = false;
    const worker = new Worker(ctx, [
      family({
        "test.import": jobKind({ lane: "bulk" }, async () => {
          await importGate.opened;
          importFinished = true;
        }),
        "test.item": async () => {},
      }),
    ]);
    await store.jobs.enqueue("test.import", "release", {});
    worker.start();
    try {
      await until(
        "the import runs",
        async () => (await store.jobs.get("test.import", "release"))?.state === "running",
      );
      await store.jobs.enqueue("test.item", "CZ-27074358", { id: "27074358" });
      await until(
        "the fetch is done",
        async () => (await store.jobs.get("test.item", "CZ-27074358"))?.state === "done",
      );
      assert.equal(importFinished, false);
      assert.equal((await store.jobs.get("test.import", "release"))?.state, "running");
      assert.equal((await store.jobs.get("test.import", "release"))?.lane, "bulk");
      importGate.open();
      await until(
        "the import is done",
        async () => (await store.jobs.get("test.import", "release"))?.state === "done",
      );
    } finally {
      importGate.open();
      await worker.stop();
    }
  });

  test("heartbeats extend the lease of a long job, so no other worker takes it", async () => {
    const store = await testStore();
    const ctx = context(store, { JOB_LEASE_MS: "1000" });
    const jobGate = gate();
    const worker = new Worker(ctx, [family({ "test.long": async () => jobGate.opened })]);
    await store.jobs.enqueue("test.long", "a", {});
    worker.start();
    try {
      await until("the job runs", async () => (await store.jobs.get("test.long", "a"))?.state === "running");
      const firstLease = (await store.jobs.get("test.long", "a"))!.locked_until!;
      await until(
        "the lease is renewed",
        async () => (await store.jobs.get("test.long", "a"))!.locked_until! > firstLease,
      );
      const afterFirstLease = new Date(Date.parse(firstLease) + 1);
      assert.equal(await store.jobs.claim(["test.long"], 1000, afterFirstLease), undefined);
      jobGate.open();
      await until("the job is done", async () => (await store.jobs.get("test.long", "a"))?.state === "done");
      assert.equal((await store.jobs.get("test.long", "a"))?.attempts, 1);
    } finally {
      jobGate.open();
      await worker.stop();
    }
  });

  test("a job past its time limit is failed for a retry and its slot runs the next job", async () => {
    const store = await testStore();
    const ctx = context(store, { WORKER_FETCH_CONCURRENCY: "1" });
    let stuckSignal: AbortSignal | undefined;
    const worker = new Worker(ctx, [
      family({
        "test.stuck": jobKind({ timeLimitMs: 50 }, async (_payload, _ctx, job?: JobRun) => {
          stuckSignal = job?.signal;
          await new Promise(() => {});
        }),
        "test.item": async () => {},
      }),
    ]);
    await store.jobs.enqueue("test.stuck", "a", {}, { maxAttempts: 2 });
    await store.jobs.enqueue("test.item", "b", {}, { runAt: new Date(Date.now() + 1) });
    const before = Date.now();
    assert.equal(await worker.drain(), 2);
    const stuck = await store.jobs.get("test.stuck", "a");
    assert.equal(stuck?.state, "queued");
    assert.equal(stuck?.attempts, 1);
    assert.match(stuck?.last_error ?? "", /time limit of 50 ms reached/);
    assert.ok(Date.parse(stuck!.run_at) >= before + 5000, "retried after its back-off");
    assert.equal(stuckSignal?.aborted, true, "the handler was told to stop");
    assert.equal((await store.jobs.get("test.item", "b"))?.state, "done");
  });

  test("a job that reaches its time limit on its last attempt is dead", async () => {
    const store = await testStore();
    const worker = new Worker(context(store), [
      family({ "test.stuck": jobKind({ timeLimitMs: 20 }, () => new Promise(() => {})) }),
    ]);
    await store.jobs.enqueue("test.stuck", "a", {}, { maxAttempts: 1 });
    assert.equal(await worker.drain(), 1);
    assert.deepEqual(
      (await store.jobs.dead("test.stuck")).map((j) => j.key),
      ["a"],
    );
  });

  test("a job still running when the shutdown grace ends is handed back, its attempt not counted", async () => {
    const store = await testStore();
    const ctx = context(store);
    let signal: AbortSignal | undefined;
    const worker = new Worker(ctx, [
      family({
        "test.long": async (_payload, _ctx, job) => {
          signal = job?.signal;
          await new Promise(() => {});
        },
      }),
    ]);
    await store.jobs.enqueue("test.long", "a", {});
    worker.start();
    await until("the job runs", async () => (await store.jobs.get("test.long", "a"))?.state === "running");
    await worker.stop(20);
    const job = await store.jobs.get("test.long", "a");
    assert.equal(job?.state, "queued");
    assert.equal(job?.attempts, 0);
    assert.equal(signal?.aborted, true);
    assert.ok(
      (await store.jobs.claim(["test.long"], 60_000))?.key === "a",
      "another worker takes it at once",
    );
  });

  test("a warmer declared bulk is queued in the bulk lane", async () => {
    const store = await testStore();
    const worker = new Worker(context(store), [
      {
        name: "testfam",
        products: [],
        warmers: [
          { name: "snapshot", everyMs: 3600_000, lane: "bulk", run: async () => ({}) },
          { name: "rates", everyMs: 3600_000, run: async () => ({}) },
        ],
      },
    ]);
    assert.deepEqual((await worker.scheduleWarmers()).sort(), ["rates", "snapshot"]);
    assert.equal((await store.jobs.get("warmer", "snapshot"))?.lane, "bulk");
    assert.equal((await store.jobs.get("warmer", "rates"))?.lane, "warm");
  });
});

/**
 * Two nodes: on PostgreSQL two store connections (two pools) on one schema, on SQLite two workers of one process
 * on the one store.
 */
async function twoNodeStores(): Promise<[Store, Store]> {
  if (!TEST_DATABASE_URL) {
    const store = await testStore();
    return [store, store];
  }
  const database = testDatabase();
  const open = () =>
    openStore({
      kind: "postgres",
      url: TEST_DATABASE_URL as string,
      schema: database.env.DATABASE_SCHEMA,
      poolSize: 4,
    });
  const first = await open();
  const second = await open();
  stores.push(second, {
    close: async () => {
      await first.close();
      await database.drop();
    },
  });
  return [first, second];
}

describe("Worker lanes across nodes", () => {
  test("two workers on one database share the lanes and never run a job twice", async () => {
    const [storeA, storeB] = await twoNodeStores();
    const ran: Array<{ key: string; node: string }> = [];
    const jobs = (node: string): Record<string, JobHandler> => ({
      "test.item": async (payload) => {
        await sleep(5);
        ran.push({ key: String((payload as { id: string }).id), node });
      },
      "test.import": jobKind({ lane: "bulk" }, async (payload) => {
        await sleep(5);
        ran.push({ key: String((payload as { id: string }).id), node });
      }),
    });
    const workerA = new Worker(context(storeA), [family(jobs("a"))]);
    const workerB = new Worker(context(storeB), [family(jobs("b"))]);
    const keys: string[] = [];
    for (let i = 0; i < 40; i++) {
      keys.push(`item-${i}`);
      await storeA.jobs.enqueue("test.item", `item-${i}`, { id: `item-${i}` });
    }
    for (let i = 0; i < 4; i++) {
      keys.push(`slice-${i}`);
      await storeB.jobs.enqueue("test.import", `slice-${i}`, { id: `slice-${i}` });
    }
    const [byA, byB] = await Promise.all([workerA.drain(), workerB.drain()]);
    assert.equal(byA + byB, keys.length);
    assert.deepEqual(ran.map((r) => r.key).sort(), [...keys].sort(), "every job ran exactly once");
    assert.ok(byA > 0 && byB > 0, `both workers took jobs (${byA} and ${byB})`);
    assert.deepEqual(await storeA.jobs.counts("test.item"), { queued: 0, running: 0, done: 40, dead: 0 });
  });
});
