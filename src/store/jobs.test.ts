import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { openTestStore } from "../../test/test-store.ts";
import type { Store } from "./store.ts";

const T0 = new Date("2025-03-01T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE = 60_000;

let store: Store;

beforeEach(async () => {
  store = await openTestStore();
});

afterEach(async () => {
  await store.close();
});

describe("JobRepository.enqueue", () => {
  test("a new (queue, key) is queued with its payload and due now", async () => {
    assert.equal(await store.jobs.enqueue("fetch", "a", { id: 7 }, {}, T0), true);
    const job = await store.jobs.get("fetch", "a");
    assert.ok(job);
    assert.equal(job.state, "queued");
    assert.equal(job.attempts, 0);
    assert.equal(job.max_attempts, 5);
    assert.deepEqual(JSON.parse(job.payload), { id: 7 });
    assert.equal(job.run_at, T0.toISOString());
  });

  test("the same key is not added again while it is queued", async () => {
    assert.equal(await store.jobs.enqueue("fetch", "a", { v: 1 }, {}, T0), true);
    assert.equal(await store.jobs.enqueue("fetch", "a", { v: 2 }, {}, at(1000)), false);
    const job = await store.jobs.get("fetch", "a");
    assert.deepEqual(JSON.parse(job!.payload), { v: 1 });
    assert.deepEqual(await store.jobs.counts("fetch"), { queued: 1, running: 0, done: 0, dead: 0 });
  });

  test("the same key is not added again while it is running", async () => {
    await store.jobs.enqueue("fetch", "a", { v: 1 }, {}, T0);
    const claimed = await store.jobs.claim(["fetch"], LEASE, T0);
    assert.ok(claimed);
    assert.equal(await store.jobs.enqueue("fetch", "a", { v: 2 }, {}, at(1000)), false);
    const job = await store.jobs.get("fetch", "a");
    assert.equal(job!.state, "running");
    assert.equal(job!.attempts, 1);
  });

  test("the same key in another queue is a different job", async () => {
    assert.equal(await store.jobs.enqueue("fetch", "a", null, {}, T0), true);
    assert.equal(await store.jobs.enqueue("other", "a", null, {}, T0), true);
    assert.equal((await store.jobs.counts("fetch")).queued, 1);
    assert.equal((await store.jobs.counts("other")).queued, 1);
  });

  test("a done job is queued again with a fresh payload and attempt count", async () => {
    await store.jobs.enqueue("fetch", "a", { v: 1 }, {}, T0);
    const job = await store.jobs.claim(["fetch"], LEASE, T0);
    await store.jobs.complete(job!.id, at(10));
    assert.equal(await store.jobs.enqueue("fetch", "a", { v: 2 }, {}, at(5000)), true);
    const again = await store.jobs.get("fetch", "a");
    assert.equal(again!.state, "queued");
    assert.equal(again!.attempts, 0);
    assert.equal(again!.run_at, at(5000).toISOString());
    assert.deepEqual(JSON.parse(again!.payload), { v: 2 });
    assert.equal((await store.jobs.claim(["fetch"], LEASE, at(5000)))?.id, job!.id);
  });

  test("a dead job is queued again and its last error is cleared", async () => {
    await store.jobs.enqueue("fetch", "a", null, { maxAttempts: 1 }, T0);
    const job = await store.jobs.claim(["fetch"], LEASE, T0);
    assert.equal(await store.jobs.fail(job!, "boom", 1000, T0), "dead");
    assert.equal(await store.jobs.enqueue("fetch", "a", null, {}, at(1)), true);
    const again = await store.jobs.get("fetch", "a");
    assert.equal(again!.state, "queued");
    assert.equal(again!.last_error, null);
    assert.equal(again!.attempts, 0);
  });

  test("runAt delays the job", async () => {
    await store.jobs.enqueue("fetch", "later", null, { runAt: at(60_000) }, T0);
    assert.equal(await store.jobs.claim(["fetch"], LEASE, at(59_999)), undefined);
    assert.equal((await store.jobs.claim(["fetch"], LEASE, at(60_000)))?.key, "later");
  });
});

describe("JobRepository.claim", () => {
  test("returns due jobs in run_at order, not insertion order", async () => {
    await store.jobs.enqueue("q", "third", null, { runAt: at(3000) }, T0);
    await store.jobs.enqueue("q", "first", null, { runAt: at(1000) }, T0);
    await store.jobs.enqueue("q", "second", null, { runAt: at(2000) }, T0);
    const now = at(10_000);
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push((await store.jobs.claim(["q"], LEASE, now))?.key);
    assert.deepEqual(keys, ["first", "second", "third"]);
    assert.equal(await store.jobs.claim(["q"], LEASE, now), undefined);
  });

  test("skips jobs that are not due yet", async () => {
    await store.jobs.enqueue("q", "future", null, { runAt: at(60_000) }, T0);
    await store.jobs.enqueue("q", "now", null, {}, T0);
    assert.equal((await store.jobs.claim(["q"], LEASE, T0))?.key, "now");
    assert.equal(await store.jobs.claim(["q"], LEASE, T0), undefined);
    const future = await store.jobs.get("q", "future");
    assert.equal(future!.state, "queued");
    assert.equal(future!.attempts, 0);
  });

  test("only takes jobs of the asked queues", async () => {
    await store.jobs.enqueue("other", "x", null, {}, T0);
    await store.jobs.enqueue("mine", "y", null, { runAt: at(10) }, T0);
    assert.equal(await store.jobs.claim([], LEASE, at(100)), undefined);
    assert.equal((await store.jobs.claim(["mine"], LEASE, at(100)))?.key, "y");
    assert.equal(await store.jobs.claim(["mine"], LEASE, at(100)), undefined);
    assert.equal((await store.jobs.get("other", "x"))!.state, "queued");
    assert.equal((await store.jobs.claim(["mine", "other"], LEASE, at(100)))?.key, "x");
  });

  test("marks the job running, counts the attempt and sets the lease", async () => {
    await store.jobs.enqueue("q", "a", { n: 1 }, {}, T0);
    const job = await store.jobs.claim(["q"], LEASE, at(5));
    assert.ok(job);
    assert.equal(job.state, "running");
    assert.equal(job.attempts, 1);
    assert.equal(job.locked_until, at(5 + LEASE).toISOString());
    assert.deepEqual(JSON.parse(job.payload), { n: 1 });
    assert.deepEqual(await store.jobs.counts("q"), { queued: 0, running: 1, done: 0, dead: 0 });
  });

  test("a running job is not claimed again while its lease holds, and is once it expires", async () => {
    await store.jobs.enqueue("q", "a", null, {}, T0);
    const first = await store.jobs.claim(["q"], LEASE, T0);
    assert.equal(first?.attempts, 1);
    assert.equal(await store.jobs.claim(["q"], LEASE, at(LEASE - 1)), undefined);
    assert.equal(await store.jobs.claim(["q"], LEASE, at(LEASE)), undefined);
    const second = await store.jobs.claim(["q"], LEASE, at(LEASE + 1));
    assert.equal(second?.id, first!.id);
    assert.equal(second?.attempts, 2);
    assert.equal(second?.locked_until, at(2 * LEASE + 1).toISOString());
  });
});

describe("JobRepository.fail", () => {
  test("schedules a retry with exponential backoff from now", async () => {
    const base = 1000;
    await store.jobs.enqueue("q", "a", null, { maxAttempts: 5 }, T0);
    let now = T0;
    for (let attempt = 1; attempt <= 4; attempt++) {
      const job = await store.jobs.claim(["q"], LEASE, now);
      assert.equal(job?.attempts, attempt);
      assert.equal(await store.jobs.fail(job!, `error ${attempt}`, base, now), "retry");
      const row = await store.jobs.get("q", "a");
      const expected = new Date(now.getTime() + base * 2 ** (attempt - 1));
      assert.equal(row!.state, "queued");
      assert.equal(row!.run_at, expected.toISOString());
      assert.equal(row!.last_error, `error ${attempt}`);
      assert.equal(row!.locked_until, null);
      // not due a millisecond before the backoff ends
      assert.equal(await store.jobs.claim(["q"], LEASE, new Date(expected.getTime() - 1)), undefined);
      now = expected;
    }
  });

  test("the last allowed attempt marks the job dead; it is never claimed again", async () => {
    await store.jobs.enqueue("q", "a", null, { maxAttempts: 2 }, T0);
    const first = await store.jobs.claim(["q"], LEASE, T0);
    assert.equal(await store.jobs.fail(first!, "first", 1000, T0), "retry");
    const second = await store.jobs.claim(["q"], LEASE, at(1000));
    assert.equal(second?.attempts, 2);
    assert.equal(await store.jobs.fail(second!, "second", 1000, at(1000)), "dead");
    const row = await store.jobs.get("q", "a");
    assert.equal(row!.state, "dead");
    assert.equal(row!.last_error, "second");
    assert.equal(await store.jobs.claim(["q"], LEASE, at(365 * 24 * 3600_000)), undefined);
    assert.deepEqual(await store.jobs.counts("q"), { queued: 0, running: 0, done: 0, dead: 1 });
  });

  test("keeps at most 2000 characters of the error", async () => {
    await store.jobs.enqueue("q", "a", null, {}, T0);
    const job = await store.jobs.claim(["q"], LEASE, T0);
    await store.jobs.fail(job!, "x".repeat(5000), 1000, T0);
    assert.equal((await store.jobs.get("q", "a"))!.last_error!.length, 2000);
  });
});

describe("JobRepository.complete, dead and counts", () => {
  test("purgeDone drops finished jobs older than the cut-off, never queued or dead ones", async () => {
    const keys = ["done-long-ago", "done-recently", "dead", "still-queued"];
    for (const [i, key] of keys.entries()) await store.jobs.enqueue("q", key, null, { runAt: at(i) }, T0);
    const finish = async (when: Date, outcome: "done" | "dead") => {
      const job = await store.jobs.claim(["q"], LEASE, when);
      assert.ok(job);
      if (outcome === "done") await store.jobs.complete(job.id, when);
      else await store.jobs.fail({ ...job, max_attempts: 1 }, "boom", 1000, when);
      return job.key;
    };
    assert.equal(await finish(T0, "done"), "done-long-ago");
    assert.equal(await finish(at(60_000), "done"), "done-recently");
    assert.equal(await finish(at(60_000), "dead"), "dead");
    assert.equal(await store.jobs.purgeDone(at(30_000)), 1);
    assert.deepEqual(
      await Promise.all(keys.map(async (key) => (await store.jobs.get("q", key))?.state ?? "purged")),
      ["purged", "done", "dead", "queued"],
    );
  });

  test("complete marks the job done and it is not claimed again", async () => {
    await store.jobs.enqueue("q", "a", null, {}, T0);
    const job = await store.jobs.claim(["q"], LEASE, T0);
    await store.jobs.complete(job!.id, at(1));
    const row = await store.jobs.get("q", "a");
    assert.equal(row!.state, "done");
    assert.equal(row!.locked_until, null);
    assert.equal(await store.jobs.claim(["q"], LEASE, at(10 * LEASE)), undefined);
  });

  test("dead() lists only the dead jobs of the queue, newest first, within the limit", async () => {
    for (const [i, key] of ["d1", "d2", "d3"].entries()) {
      await store.jobs.enqueue("q", key, null, { maxAttempts: 1, runAt: at(i) }, T0);
    }
    await store.jobs.enqueue("q", "alive", null, { runAt: at(100) }, T0);
    await store.jobs.enqueue("other", "d-other", null, { maxAttempts: 1 }, T0);
    for (let i = 0; i < 3; i++) {
      const job = await store.jobs.claim(["q"], LEASE, at(10));
      await store.jobs.fail(job!, `bad ${job!.key}`, 1000, at(20 + i));
    }
    const other = await store.jobs.claim(["other"], LEASE, at(10));
    await store.jobs.fail(other!, "bad", 1000, at(30));

    const dead = await store.jobs.dead("q");
    assert.deepEqual(
      dead.map((j) => [j.key, j.last_error]),
      [
        ["d3", "bad d3"],
        ["d2", "bad d2"],
        ["d1", "bad d1"],
      ],
    );
    assert.deepEqual(
      (await store.jobs.dead("q", 1)).map((j) => j.key),
      ["d3"],
    );
    assert.deepEqual(await store.jobs.dead("empty"), []);
  });

  test("counts() reports every state of one queue", async () => {
    assert.deepEqual(await store.jobs.counts("q"), { queued: 0, running: 0, done: 0, dead: 0 });
    await store.jobs.enqueue("q", "done", null, {}, T0);
    await store.jobs.enqueue("q", "dead", null, { maxAttempts: 1, runAt: at(1) }, T0);
    await store.jobs.enqueue("q", "running", null, { runAt: at(2) }, T0);
    await store.jobs.enqueue("q", "queued1", null, { runAt: at(3_600_000) }, T0);
    await store.jobs.enqueue("q", "queued2", null, { runAt: at(3_600_000) }, T0);
    await store.jobs.enqueue("elsewhere", "x", null, {}, T0);
    const j1 = await store.jobs.claim(["q"], LEASE, at(10));
    assert.equal(j1?.key, "done");
    await store.jobs.complete(j1!.id, at(10));
    const j2 = await store.jobs.claim(["q"], LEASE, at(10));
    assert.equal(j2?.key, "dead");
    await store.jobs.fail(j2!, "bad", 1000, at(10));
    const j3 = await store.jobs.claim(["q"], LEASE, at(10));
    assert.equal(j3?.key, "running");
    assert.deepEqual(await store.jobs.counts("q"), { queued: 2, running: 1, done: 1, dead: 1 });
    assert.deepEqual(await store.jobs.counts("elsewhere"), { queued: 1, running: 0, done: 0, dead: 0 });
  });
});

describe("JobRepository lanes and leases", () => {
  test("a job is filed in the lane its queue declares, or the one its enqueue names", async () => {
    store.jobs.fileLanes((queue) => (queue === "import" ? "bulk" : "fetch"));
    await store.jobs.enqueue("import", "slice-0", null, {}, T0);
    await store.jobs.enqueue("item", "a", null, {}, T0);
    await store.jobs.enqueue("item", "b", null, { lane: "warm" }, T0);
    assert.equal((await store.jobs.get("import", "slice-0"))?.lane, "bulk");
    assert.equal((await store.jobs.get("item", "a"))?.lane, "fetch");
    assert.equal((await store.jobs.get("item", "b"))?.lane, "warm");
    assert.equal((await store.jobs.claim(["import", "item"], LEASE, T0, ["bulk"]))?.key, "slice-0");
    assert.equal((await store.jobs.claim(["import", "item"], LEASE, T0, ["warm"]))?.key, "b");
    assert.equal(await store.jobs.claim(["import", "item"], LEASE, T0, ["warm", "bulk"]), undefined);
    assert.equal((await store.jobs.claim(["import", "item"], LEASE, T0, ["fetch"]))?.key, "a");
  });

  test("a buyer's fetch of an item a warmer queued moves it up to the fetch lane; never down", async () => {
    assert.equal(
      await store.jobs.enqueue("item", "a", { v: 1 }, { lane: "warm", runAt: at(5000) }, T0),
      true,
    );
    assert.equal(await store.jobs.enqueue("item", "a", { v: 2 }, { lane: "fetch" }, at(1)), false);
    const moved = await store.jobs.get("item", "a");
    assert.equal(moved?.lane, "fetch");
    assert.deepEqual(JSON.parse(moved!.payload), { v: 1 });
    await store.jobs.enqueue("item", "a", null, { lane: "bulk" }, at(2));
    assert.equal((await store.jobs.get("item", "a"))?.lane, "fetch");
  });

  test("a heartbeat extends the lease; a claim whose lease ran out is taken over and can no longer finish", async () => {
    await store.jobs.enqueue("q", "a", null, {}, T0);
    const first = await store.jobs.claim(["q"], LEASE, T0);
    assert.ok(first);
    assert.equal(await store.jobs.heartbeat(first, LEASE, at(LEASE - 10)), true);
    assert.equal(
      await store.jobs.claim(["q"], LEASE, at(LEASE + 1)),
      undefined,
      "the heartbeat kept the lease",
    );
    // No heartbeat after that (its node died): once the lease runs out another worker takes the job.
    const second = await store.jobs.claim(["q"], LEASE, at(2 * LEASE));
    assert.equal(second?.id, first.id);
    assert.notEqual(second?.lease_id, first.lease_id);
    assert.equal(await store.jobs.heartbeat(first, LEASE, at(2 * LEASE + 1)), false);
    assert.equal(await store.jobs.complete(first, at(2 * LEASE + 2)), false);
    await store.jobs.fail(first, "late failure", 1000, at(2 * LEASE + 3));
    assert.equal((await store.jobs.get("q", "a"))?.state, "running", "the old claim changed nothing");
    assert.equal(await store.jobs.complete(second!, at(2 * LEASE + 4)), true);
    assert.equal((await store.jobs.get("q", "a"))?.state, "done");
  });

  test("laneFigures counts due and running jobs per lane and the oldest due job's wait", async () => {
    await store.jobs.enqueue("item", "old", null, { lane: "fetch" }, T0);
    await store.jobs.enqueue("item", "new", null, { lane: "fetch" }, at(30_000));
    await store.jobs.enqueue("item", "later", null, { lane: "fetch", runAt: at(600_000) }, T0);
    await store.jobs.enqueue("import", "slice", null, { lane: "bulk" }, T0);
    await store.jobs.claim(["import"], LEASE, at(1000));
    assert.deepEqual(await store.jobs.laneFigures(at(40_000)), [
      { lane: "fetch", due: 2, running: 0, oldestDueAgeSec: 40 },
      { lane: "warm", due: 0, running: 0, oldestDueAgeSec: null },
      { lane: "bulk", due: 0, running: 1, oldestDueAgeSec: null },
    ]);
  });
});
