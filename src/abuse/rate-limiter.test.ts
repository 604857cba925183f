import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openTestStore } from "../../test/test-store.ts";
import { createLogger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { RateLimitCounts } from "./rate-limit-counts.ts";
import { OVERSHOOT, RateLimiter, WINDOW_MS } from "./rate-limiter.ts";

const log = createLogger("silent");
/** 10 s into a window, so that 50 s remain. */
const T0 = 1_000 * WINDOW_MS + 10_000;

let store: Store;
before(async () => {
  store = await openTestStore();
});
after(async () => {
  await store.close();
});

function taken(limiter: RateLimiter, client: string, times: number, expensive = false, now = T0): number {
  let allowed = 0;
  for (let i = 0; i < times; i++) if (limiter.take(client, expensive, now) === undefined) allowed++;
  return allowed;
}

test("a burst over the limit is refused until the window ends, and counted nowhere once refused", () => {
  const limiter = new RateLimiter(store, { perMin: 5, expensivePerMin: 0 }, log);
  assert.equal(taken(limiter, "burst-1", 8), 5);
  assert.deepEqual(limiter.take("burst-1", false, T0 + 1000), {
    limit: 5,
    expensive: false,
    retryAfterSec: 49,
  });
  assert.equal(taken(limiter, "burst-2", 1), 1, "another client has its own count");
  assert.equal(taken(limiter, "burst-1", 5, false, T0 + 50_000), 5, "the next window starts afresh");
});

test("requests split across two nodes are limited by the cluster's total", async () => {
  const a = new RateLimiter(store, { perMin: 10, expensivePerMin: 0 }, log);
  const b = new RateLimiter(store, { perMin: 10, expensivePerMin: 0 }, log);
  const now = Date.now();
  assert.equal(taken(a, "split", 4, false, now), 4);
  assert.equal(taken(b, "split", 4, false, now), 4);
  await a.sync();
  await b.sync();
  // B added its 4 to A's 4 and got 8 back: two more; A learns the total on its next sync.
  assert.equal(taken(b, "split", 5, false, now), 2);
  await b.sync();
  await a.sync();
  assert.equal(a.take("split", false, now)?.limit, 10, "A refuses a client it saw only 4 times");
  assert.equal(
    await new RateLimitCounts(store)
      .totals(now - (now % WINDOW_MS), ["all:split"])
      .then((t) => t.get("all:split")),
    10,
  );
});

test("routes whose 402 costs work have their own, lower limit within the general one", () => {
  const limiter = new RateLimiter(store, { perMin: 6, expensivePerMin: 2 }, log);
  assert.equal(taken(limiter, "chatty", 3, true), 2);
  assert.deepEqual(limiter.take("chatty", true, T0), { limit: 2, expensive: true, retryAfterSec: 50 });
  assert.equal(taken(limiter, "chatty", 10), 4, "cheap routes still have the rest of the general limit");
});

test("limits of 0 never refuse", () => {
  const limiter = new RateLimiter(store, { perMin: 0, expensivePerMin: 0 }, log);
  assert.equal(limiter.enabled, false);
  assert.equal(taken(limiter, "anyone", 1000, true), 1000);
});

test("ended windows are still added to the store, and windows older than the last are pruned", async () => {
  const limiter = new RateLimiter(store, { perMin: 100, expensivePerMin: 0 }, log);
  const counts = new RateLimitCounts(store);
  const now = Date.now();
  const start = now - (now % WINDOW_MS);
  await counts.add(start - 3 * WINDOW_MS, new Map([["all:old", 7]]));
  assert.equal(taken(limiter, "late", 3, false, now - WINDOW_MS), 3);
  assert.equal(taken(limiter, "late", 1, false, now), 1);
  await limiter.sync();
  assert.equal((await counts.totals(start - WINDOW_MS, ["all:late"])).get("all:late"), 3);
  assert.equal((await counts.totals(start, ["all:late"])).get("all:late"), 1);
  assert.equal((await counts.totals(start - 3 * WINDOW_MS, ["all:old"])).size, 0, "pruned");
});

test("counts the store could not take are kept and added by the next sync", async () => {
  const limiter = new RateLimiter(store, { perMin: 100, expensivePerMin: 0 }, log);
  const counts = (limiter as unknown as { counts: RateLimitCounts }).counts;
  const add = counts.add.bind(counts);
  counts.add = async () => {
    throw new Error("store unreachable");
  };
  const now = Date.now();
  assert.equal(taken(limiter, "offline", 3, false, now), 3);
  await limiter.sync();
  counts.add = add;
  await limiter.sync();
  const start = now - (now % WINDOW_MS);
  assert.equal((await counts.totals(start, ["all:offline"])).get("all:offline"), 3);
});

test("requests arriving while a sync is adding the counts to a slow store are still counted", async (t) => {
  // A store of its own: the only node counting there, so no slice of the limit hides the count.
  const own = await openTestStore();
  t.after(() => own.close());
  const limiter = new RateLimiter(own, { perMin: 6, expensivePerMin: 0 }, log);
  const counts = (limiter as unknown as { counts: RateLimitCounts }).counts;
  const add = counts.add.bind(counts);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let sending = false;
  counts.add = async (start, buckets) => {
    if (buckets.has("all:slow-store")) {
      sending = true;
      await held;
    }
    return add(start, buckets);
  };
  const now = Date.now();
  assert.equal(taken(limiter, "slow-store", 5, false, now), 5);
  const syncing = limiter.sync();
  while (!sending) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(taken(limiter, "slow-store", 3, false, now), 1, "the five being sent still count");
  release();
  await syncing;
  counts.add = add;
  assert.equal(taken(limiter, "slow-store", 2, false, now), 0, "and once the store has them");
});

test("a burst spread over three nodes between their timed syncs passes at most the limit × 1.2", async () => {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 50)); // not across two windows
  const limits = { perMin: 100, expensivePerMin: 0 };
  const nodes = [0, 1, 2].map(() => new RateLimiter(store, limits, log));
  for (const node of nodes) await node.sync();
  for (const node of nodes) await node.sync();
  for (const node of nodes) assert.ok(node.nodeCount >= 3, `${node.nodeCount} nodes known`);
  // 600 requests, round robin, a few at a time: only the syncs the nodes ask for themselves happen.
  let passed = 0;
  for (let i = 0; i < 600; i += 6) {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, k) => (nodes[(i + k) % 3] as RateLimiter).admit("three-nodes", false)),
    );
    passed += answers.filter((a) => a === undefined).length;
  }
  assert.ok(passed <= limits.perMin * (1 + OVERSHOOT), `${passed} passed a limit of ${limits.perMin}`);
  assert.ok(passed >= limits.perMin * 0.8, `${passed} passed`);
});
