import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { startLoopbackUpstream } from "../../test/family-harness.ts";
import { openTestStore } from "../../test/test-store.ts";
import { LocalBudgetBook } from "../budgets/booking.ts";
import { backgroundLimit, earliestStartWithin } from "../budgets/windows.ts";
import type { Store } from "../store/store.ts";
import { UpstreamBudgetError, UpstreamClient, type UpstreamSpec } from "./client.ts";

const UA = "paycall-test/1.0 (+http://localhost; ops@example.invalid)";
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function sharedStore(): Promise<Store> {
  const store = await openTestStore();
  closers.push(() => store.close());
  return store;
}

async function upstream(answer: Parameters<typeof startLoopbackUpstream>[0]) {
  const server = await startLoopbackUpstream(answer);
  closers.push(server.close);
  return server;
}

/** One node's client: its own process state, the shared store's budgets. */
function node(baseUrl: string, store: Store, spec: Partial<UpstreamSpec>) {
  return new UpstreamClient(
    { name: "up", defaultBaseUrl: "http://unused.invalid", minIntervalMs: 0, ...spec },
    {
      baseUrl,
      userAgent: UA,
      backoffScale: 0.001,
      budgets: store.upstreamBudgets,
      localBudgets: new LocalBudgetBook(),
    },
  );
}

describe("sliding windows", () => {
  test("the N-th latest booking must leave the window; background keeps one for buyers", () => {
    assert.equal(earliestStartWithin([1000, 2000], { perMinute: 2 }, 2000, undefined), 61_000);
    assert.equal(earliestStartWithin([1000], { perMinute: 2 }, 2000, undefined), 2000);
    assert.equal(backgroundLimit(5, 0.6), 3);
    assert.equal(backgroundLimit(2, 1), 1);
    assert.equal(earliestStartWithin([], { perDay: 1 }, 0, { share: 0.5 }), Number.POSITIVE_INFINITY);
  });
});

describe("UpstreamClient with a shared budget", () => {
  test("a spent window refuses before sending, on every node, and says when it frees", async () => {
    const store = await sharedStore();
    const server = await upstream(() => ({ status: 200, body: "{}" }));
    const spec = { limits: { perMinute: 2 } };
    const a = node(server.baseUrl, store, spec);
    const b = node(server.baseUrl, store, spec);
    await a.get({ path: "/x" });
    await b.get({ path: "/x" });
    await assert.rejects(b.get({ path: "/x", maxWaitMs: 1000 }), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.equal(error.reason, "spent");
      assert.ok(error.retryAfterSec > 55 && error.retryAfterSec <= 60, String(error.retryAfterSec));
      return true;
    });
    assert.equal(server.requests.length, 2);
    const state = await a.budgetState();
    assert.deepEqual(state.windows.perMinute, { limit: 2, used: 2, left: 0 });
  });

  test("a 429 with a long Retry-After pauses the budget for every node; nothing more is sent", async () => {
    const store = await sharedStore();
    const server = await upstream(() => ({
      status: 429,
      headers: { "retry-after": "600" },
      body: "slow down",
    }));
    const spec = { throttle: { defaultPauseMs: 60_000 }, maxRetryAfterMs: 15_000, retries: 2 };
    const a = node(server.baseUrl, store, spec);
    const b = node(server.baseUrl, store, spec);
    await assert.rejects(a.get({ path: "/x" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.equal(error.status, 429);
      assert.ok(error.retryAfterSec > 590 && error.retryAfterSec <= 600);
      return true;
    });
    await assert.rejects(b.get({ path: "/x" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.equal(error.reason, "paused");
      assert.match(error.message, /HTTP 429/);
      return true;
    });
    assert.equal(server.requests.length, 1);
    assert.ok(((await b.budgetState()).pausedUntilMs ?? 0) > Date.now() + 590_000);
  });

  test("a short Retry-After is waited out through the shared pause, then the request succeeds", async () => {
    const store = await sharedStore();
    let n = 0;
    const server = await upstream(() =>
      ++n === 1 ? { status: 429, headers: { "retry-after": "1" }, body: "" } : { status: 200, body: "ok" },
    );
    const client = node(server.baseUrl, store, {
      throttle: { defaultPauseMs: 60_000 },
      maxRetryAfterMs: 5000,
    });
    const started = Date.now();
    const response = await client.get({ path: "/x" });
    assert.equal(response.body, "ok");
    assert.ok(Date.now() - started >= 950, "waited for the pause");
  });

  test("a least pause overrides a short Retry-After and nothing is retried within seconds (SEC)", async () => {
    const store = await sharedStore();
    const server = await upstream(() => ({ status: 429, headers: { "retry-after": "1" }, body: "" }));
    const client = node(server.baseUrl, store, {
      throttle: { defaultPauseMs: 600_000, minPauseMs: 600_000 },
      maxRetryAfterMs: 60_000,
      retries: 3,
    });
    await assert.rejects(client.get({ path: "/x" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.ok(error.retryAfterSec >= 599);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  test("without Retry-After the probe says how long to pause; a 504 counts when listed", async () => {
    const store = await sharedStore();
    const server = await upstream(() => ({ status: 504, body: "Gateway Timeout" }));
    const client = node(server.baseUrl, store, {
      throttle: { statuses: [429, 504], defaultPauseMs: 300_000, probe: async () => 42_000 },
      maxRetryAfterMs: 10_000,
    });
    await assert.rejects(client.get({ path: "/x" }), (error: unknown) => {
      assert.ok(error instanceof UpstreamBudgetError);
      assert.ok(error.retryAfterSec > 38 && error.retryAfterSec <= 42, String(error.retryAfterSec));
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  test("a status the throttle lists (NVD's 403) is a refusal: paused for, retried, told to the caller", async () => {
    const store = await sharedStore();
    let n = 0;
    const server = await upstream(() =>
      ++n <= 2 ? { status: 403, body: "Forbidden" } : { status: 200, body: "ok" },
    );
    const client = node(server.baseUrl, store, {
      throttle: { statuses: [403, 429], defaultPauseMs: 300 },
      retries: 2,
    });
    const refusals: number[] = [];
    const started = Date.now();
    const response = await client.get({ path: "/x", onRefused: (status) => void refusals.push(status) });
    assert.equal(response.body, "ok");
    assert.deepEqual(refusals, [403, 403]);
    assert.equal(server.requests.length, 3);
    assert.ok(Date.now() - started >= 550, "both pauses were waited out");
  });

  test("a 403 the throttle does not list is an answer, as it is without a throttle", async () => {
    const store = await sharedStore();
    const server = await upstream(() => ({ status: 403, body: "Forbidden" }));
    for (const throttle of [{ defaultPauseMs: 60_000 }, undefined]) {
      const client = node(server.baseUrl, store, throttle ? { throttle } : {});
      const refusals: number[] = [];
      const response = await client.get({ path: "/x", onRefused: (status) => void refusals.push(status) });
      assert.deepEqual([response.status, response.body, refusals.length], [403, "Forbidden", 0]);
    }
    assert.equal(server.requests.length, 2, "no retry");
  });

  test("without a store the process keeps its own windows", async () => {
    const server = await upstream(() => ({ status: 200, body: "{}" }));
    const client = new UpstreamClient(
      { name: "up", defaultBaseUrl: "http://unused.invalid", minIntervalMs: 0, limits: { perHour: 1 } },
      { baseUrl: server.baseUrl, userAgent: UA, localBudgets: new LocalBudgetBook() },
    );
    await client.get({ path: "/x" });
    await assert.rejects(client.get({ path: "/x", maxWaitMs: 0 }), UpstreamBudgetError);
    assert.equal(server.requests.length, 1);
  });
});

describe("first back-off", () => {
  test("a refusal without Retry-After waits the spec's first back-off (NVD: one spacing step)", async () => {
    let n = 0;
    const server = await upstream(() =>
      ++n === 1 ? { status: 503, body: "" } : { status: 200, body: "ok" },
    );
    const client = new UpstreamClient(
      { name: "up", defaultBaseUrl: "http://unused.invalid", minIntervalMs: 0, firstBackoffMs: 400 },
      { baseUrl: server.baseUrl, userAgent: UA },
    );
    const started = Date.now();
    assert.equal((await client.get({ path: "/x" })).body, "ok");
    assert.ok(Date.now() - started >= 190, "at least half the first back-off (jitter)");
  });
});
