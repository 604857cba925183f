// /metrics after a known sequence of calls shows exactly those counts; it is refused without the token and
// served without one on the loopback METRICS_PORT server.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../test/harness.ts";
import { STUB_SETTLE_FAILED, STUB_VALID, startStubFacilitator } from "../../test/stub-facilitator.ts";
import { testFamily } from "../../test/test-family.ts";
import type { Family } from "../catalog/product.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../x402/shared/networks.ts";

const TOKEN = "metrics-test-token-0123456789";
const ITEM = "/v1/test/item?mode=ok";

/** A family with two warmers the worker never runs (RUN_WARMERS=false); the test writes their runs. */
const warmedFamily: Family = {
  name: "obs-test",
  products: [],
  warmers: [
    { name: "obs.ran", everyMs: 3600_000, run: async () => ({}) },
    { name: "obs.never", everyMs: 60_000, run: async () => ({}) },
  ],
};

/** Samples of one metric from the exposition text, with their labels parsed. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const found: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    const match = line.match(/^([a-z_:]+)(?:\{(.*)\})? (\S+)$/);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key as string] = value as string;
    const raw = match[3] as string;
    found.push({ labels, value: raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw) });
  }
  return found;
}

function value(text: string, name: string, labels: Record<string, string>): number | undefined {
  return samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

let service: TestService;
before(async () => {
  service = await startTestService({ ADMIN_TOKEN: TOKEN, METRICS_PORT: "0" }, [testFamily]);
});
after(async () => {
  await service?.stop();
});

async function scrape(from = service): Promise<string> {
  const response = await fetch(`${from.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return response.text();
}

test("a 402, a paid call, a free sample and a 400 are counted exactly", async () => {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  assert.equal((await fetch(`${service.url}${ITEM}`)).status, 402);
  // The paying client asks once without payment (a second 402), then pays.
  assert.equal((await payingFetch(buyer)(`${service.url}${ITEM}`)).status, 200);
  assert.equal((await fetch(`${service.url}${ITEM}&sample=1`)).status, 200);
  assert.equal((await fetch(`${service.url}/v1/test/item?mode=bogus`)).status, 400);

  const text = await scrape();
  const route = { route: "/v1/test/item", method: "GET" };
  assert.equal(value(text, "paycall_http_requests_total", { ...route, status: "402" }), 2);
  assert.equal(value(text, "paycall_http_requests_total", { ...route, status: "200" }), 2);
  assert.equal(value(text, "paycall_http_requests_total", { ...route, status: "400" }), 1);
  assert.equal(value(text, "paycall_http_request_duration_seconds_count", route), 5);
  assert.equal(value(text, "paycall_challenges_total", { sku: "test.item" }), 2);
  assert.equal(value(text, "paycall_paid_calls_total", { sku: "test.item", network: "eip155:8453" }), 1);
  assert.equal(value(text, "paycall_free_samples_total", { sku: "test.item" }), 1);
  assert.equal(
    value(text, "paycall_settle_duration_seconds_count", { network: "eip155:8453", outcome: "settled" }),
    1,
  );
  assert.deepEqual(samples(text, "paycall_settle_failures_total"), []);
  assert.deepEqual(samples(text, "paycall_facilitator_errors_total"), []);
  // Labels name route templates only: no query string, no payer.
  assert.ok(!text.includes("mode=ok"));
  assert.ok(!text.toLowerCase().includes(buyer.address.toLowerCase()));
  assert.ok(!text.includes("/v1/test/item?"));
});

test("queue depth, warmer ages and cache reads come from the store at scrape time", async (t) => {
  // A service of its own: the store's figures of the first scrape are reused for a few seconds.
  const fresh = await startTestService({ ADMIN_TOKEN: TOKEN }, [testFamily, warmedFamily]);
  t.after(() => fresh.stop());
  const { store } = fresh;
  // Due for 90 s and no handler: it waits in the fetch lane.
  await store.jobs.enqueue("obs-parked", "waiting", {}, {}, new Date(Date.now() - 90_000));
  await store.jobs.enqueue("obs-failing", "failing", {}, { maxAttempts: 1 });
  const job = await store.jobs.claim(["obs-failing"], 60_000);
  assert.ok(job);
  assert.equal(await store.jobs.fail(job, "boom"), "dead");
  const run = await store.warmerRuns.start("obs.ran", new Date(Date.now() - 120_000));
  await store.warmerRuns.finish(run, { ok: true, counts: {} }, new Date(Date.now() - 60_000));
  await store.cache.get("obs-cache", "absent");
  await store.cache.put("obs-cache", "present", { body: 1, fetchedAt: new Date().toISOString() });
  await store.cache.get("obs-cache", "present");

  const text = await scrape(fresh);
  assert.equal(value(text, "paycall_store_up", {}), 1);
  assert.equal(value(text, "paycall_jobs", { queue: "obs-parked", state: "queued" }), 1);
  assert.equal(value(text, "paycall_jobs", { queue: "obs-failing", state: "dead" }), 1);
  assert.equal(value(text, "paycall_jobs", { queue: "reconcile-settlement", state: "queued" }), 0);
  assert.ok((value(text, "paycall_job_lane_depth", { lane: "fetch" }) as number) >= 1);
  const waited = value(text, "paycall_job_lane_oldest_due_age_seconds", { lane: "fetch" }) as number;
  assert.ok(waited >= 90 && waited < 200, `the oldest due fetch waited ${waited} s`);
  assert.equal(value(text, "paycall_job_lane_depth", { lane: "bulk" }), 0);
  const age = value(text, "paycall_warmer_last_success_age_seconds", { warmer: "obs.ran" }) as number;
  assert.ok(age >= 60 && age < 120, `age ${age}`);
  assert.equal(value(text, "paycall_warmer_last_success_age_seconds", { warmer: "obs.never" }), Infinity);
  assert.equal(value(text, "paycall_warmer_period_seconds", { warmer: "obs.never" }), 60);
  assert.equal(value(text, "paycall_cache_reads_total", { family: "obs-cache", result: "miss" }), 1);
  assert.equal(value(text, "paycall_cache_reads_total", { family: "obs-cache", result: "hit" }), 1);
});

test("facilitator failures and refused settlements are counted by step and reason", async (t) => {
  const stub = await startStubFacilitator();
  const faulty = await startTestService(
    {
      ADMIN_TOKEN: TOKEN,
      FACILITATOR_URL: stub.url,
      PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
      FACILITATOR_TIMEOUT_MS: "300",
    },
    [testFamily],
  );
  t.after(async () => {
    await faulty.stop();
    await stub.close();
  });
  stub.verify = { kind: "json", status: 503, body: { error: "down" } };
  assert.equal((await payingFetch(newBuyer())(`${faulty.url}${ITEM}`)).status, 502);
  stub.verify = STUB_VALID;
  stub.settle = STUB_SETTLE_FAILED;
  assert.equal((await payingFetch(newBuyer())(`${faulty.url}${ITEM}`)).status, 402);

  const text = await scrape(faulty);
  assert.equal(value(text, "paycall_facilitator_errors_total", { step: "verify" }), 1);
  assert.equal(
    value(text, "paycall_settle_failures_total", {
      sku: "test.item",
      network: "eip155:8453",
      reason: "invalid_exact_evm_transaction_failed",
    }),
    1,
  );
  assert.equal(
    value(text, "paycall_settle_duration_seconds_count", { network: "eip155:8453", outcome: "failed" }),
    1,
  );
  assert.deepEqual(samples(text, "paycall_paid_calls_total"), []);
});

test("/metrics on the API answers 404 without the admin token, as if it did not exist", async () => {
  for (const headers of [{}, { authorization: "Bearer wrong-token-0123456789" }]) {
    const response = await fetch(`${service.url}/metrics`, { headers });
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { error: string }).error, "not_found");
  }
});

test("METRICS_PORT serves the same metrics on 127.0.0.1 without a token", async () => {
  assert.match(service.metricsUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
  const response = await fetch(`${service.metricsUrl}/metrics`);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.equal(value(text, "paycall_challenges_total", { sku: "test.item" }), 2);
  assert.ok(samples(text, "process_cpu_user_seconds_total").length === 1, "process metrics too");
  assert.equal((await fetch(`${service.metricsUrl}/`)).status, 404);
});

test("without ADMIN_TOKEN and METRICS_PORT nothing is collected and /metrics does not exist", async () => {
  const plain = await startTestService({}, [testFamily]);
  try {
    assert.equal(plain.metricsUrl, undefined);
    assert.equal((await fetch(`${plain.url}/metrics`)).status, 404);
  } finally {
    await plain.stop();
  }
});
