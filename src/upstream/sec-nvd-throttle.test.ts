import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { startLoopbackUpstream } from "../../test/family-harness.ts";
import { openTestStore } from "../../test/test-store.ts";
import { loadConfig } from "../config.ts";
import {
  fetchSecJson,
  SEC_DATA_UPSTREAM,
  SEC_WWW_UPSTREAM,
  secBlockedOutcome,
  TICKERS_PATH,
} from "../products/edgar/upstream.ts";
import { nvdMinIntervalMs, nvdPerMinute, nvdUpstream } from "../products/nvd/upstream.ts";
import { UpstreamBudgetError } from "./client.ts";
import { UpstreamRegistry } from "./registry.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe("SEC's 429", () => {
  test("stops both SEC hosts on every node for ten minutes, at once, without retrying", async () => {
    const server = await startLoopbackUpstream(() => ({
      status: 429,
      headers: { "content-type": "text/html" },
      body: "<h1>Your Request Originates from an Undeclared Automated Tool</h1>",
    }));
    const store = await openTestStore();
    closers.push(server.close, () => store.close());
    const env = {
      UPSTREAMS: "live",
      LOG_LEVEL: "silent",
      SEC_DATA_BASE_URL: server.baseUrl,
      SEC_WWW_BASE_URL: server.baseUrl,
    };
    const nodeA = new UpstreamRegistry(loadConfig(env), undefined, undefined, store.upstreamBudgets);
    const nodeB = new UpstreamRegistry(loadConfig(env), undefined, undefined, store.upstreamBudgets);
    const ua = "paycall-test ops@example.com";
    await assert.rejects(
      fetchSecJson({ upstreams: nodeA }, SEC_DATA_UPSTREAM, "/submissions/CIK0000320193.json", ua),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamBudgetError);
        assert.ok(error.retryAfterSec > 595 && error.retryAfterSec <= 600, String(error.retryAfterSec));
        return true;
      },
    );
    assert.equal(server.requests.length, 1, "no retry within seconds");
    await assert.rejects(
      fetchSecJson({ upstreams: nodeB }, SEC_WWW_UPSTREAM, TICKERS_PATH, ua),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamBudgetError);
        assert.equal(error.reason, "paused");
        return true;
      },
    );
    assert.equal(server.requests.length, 1, "the other host on the other node sends nothing");
    const outcome = await secBlockedOutcome({ upstreams: nodeB });
    assert.equal(outcome?.status, 503);
    assert.equal(outcome?.body.charged, false);
    const retryAfterSec = Number(outcome?.body.retryAfterSec);
    assert.ok(retryAfterSec > 595 && retryAfterSec <= 600);
  });
});

test("SEC answering: no block, so buyers are not turned away", async () => {
  const store = await openTestStore();
  closers.push(() => store.close());
  const upstreams = new UpstreamRegistry(
    loadConfig({ LOG_LEVEL: "silent" }),
    undefined,
    undefined,
    store.upstreamBudgets,
  );
  assert.equal(await secBlockedOutcome({ upstreams }), null);
});

describe("NVD's published limit", () => {
  test("10 a rolling minute without a key, 100 with one, spaced a little wider", () => {
    const key = { apiKey: "00000000-0000-0000-0000-000000000000" };
    assert.equal(nvdPerMinute({ apiKey: undefined }), 10);
    assert.equal(nvdPerMinute(key), 100);
    assert.equal(nvdMinIntervalMs({ apiKey: undefined }), 6500);
    assert.equal(nvdMinIntervalMs(key), 650);
    assert.deepEqual(nvdUpstream({ apiKey: undefined }).limits, { perMinute: 10 });
    assert.equal(nvdUpstream({ apiKey: undefined }).firstBackoffMs, 6500);
  });

  test("a 403 (NVD's refusal) pauses every node's requests to NVD for a rolling minute, then fails", async () => {
    const server = await startLoopbackUpstream(() => ({
      status: 403,
      headers: { "content-type": "text/html" },
      body: "<h1>403 Forbidden</h1>",
    }));
    const store = await openTestStore();
    closers.push(server.close, () => store.close());
    const env = { UPSTREAMS: "live", LOG_LEVEL: "silent", NVD_BASE_URL: server.baseUrl };
    const nodeA = new UpstreamRegistry(loadConfig(env), undefined, undefined, store.upstreamBudgets);
    const nodeB = new UpstreamRegistry(loadConfig(env), undefined, undefined, store.upstreamBudgets);
    // No retry, so that the minute's pause is booked and reported without being waited out.
    const spec = { ...nvdUpstream({ apiKey: undefined }), retries: 0 };
    const refusals: number[] = [];
    await assert.rejects(
      nodeA.client(spec).get({ path: "/rest/json/cves/2.0", onRefused: (s) => void refusals.push(s) }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamBudgetError);
        assert.equal(error.status, 403);
        assert.ok(error.retryAfterSec > 55 && error.retryAfterSec <= 60, String(error.retryAfterSec));
        return true;
      },
    );
    assert.deepEqual(refusals, [403]);
    await assert.rejects(
      nodeB.client(spec).get({ path: "/rest/json/cves/2.0", maxWaitMs: 0 }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamBudgetError);
        assert.equal(error.reason, "paused");
        assert.match(error.message, /HTTP 403/);
        return true;
      },
    );
    assert.equal(server.requests.length, 1, "the other node sends nothing while NVD is paused");
  });
});
