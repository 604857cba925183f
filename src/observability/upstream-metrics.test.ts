import assert from "node:assert/strict";
import { test } from "node:test";
import { UpstreamClient } from "../upstream/client.ts";
import { Metrics, reasonLabel } from "./metrics.ts";

async function sampleValue(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const found = metric?.values.find((v) =>
    Object.entries(labels).every(([k, value]) => String(v.labels[k]) === value),
  );
  return found?.value ?? 0;
}

function timeout(): Error {
  return new DOMException("The operation was aborted due to timeout", "TimeoutError");
}

test("every exchange with an upstream is counted by status; failures by reason; latency per upstream", async () => {
  const metrics = new Metrics();
  const answers: Array<() => Response> = [
    () => new Response("busy", { status: 503 }),
    () => new Response("{}", { status: 200 }),
    () => {
      throw timeout();
    },
    () => {
      throw new TypeError("fetch failed");
    },
  ];
  const client = new UpstreamClient(
    { name: "demo", defaultBaseUrl: "http://demo.invalid", retries: 1, minIntervalMs: 0 },
    {
      baseUrl: "http://demo.invalid",
      userAgent: "paycall-test",
      backoffScale: 0,
      fetchImpl: async () => (answers.shift() as () => Response)(),
      observer: (upstream, status, ms) => metrics.upstreamExchange(upstream, status, ms),
    },
  );
  assert.equal((await client.get({ path: "/a" })).status, 200, "the 503 is retried");
  await assert.rejects(client.get({ path: "/b" }));

  const requests = (status: string) =>
    sampleValue(metrics, "paycall_upstream_requests_total", { upstream: "demo", status });
  assert.deepEqual(
    [await requests("503"), await requests("200"), await requests("timeout"), await requests("network")],
    [1, 1, 1, 1],
  );
  const errors = (reason: string) =>
    sampleValue(metrics, "paycall_upstream_errors_total", { upstream: "demo", reason });
  assert.deepEqual([await errors("http_5xx"), await errors("timeout"), await errors("network")], [1, 1, 1]);
  assert.equal(
    await sampleValue(metrics, "paycall_upstream_request_duration_seconds", { upstream: "demo", le: "+Inf" }),
    4,
  );
});

test("reason labels stay short codes; anything else is 'other'", () => {
  assert.equal(reasonLabel("invalid_exact_evm_transaction_failed"), "invalid_exact_evm_transaction_failed");
  assert.equal(reasonLabel("payer 0xabc… has no funds"), "other");
  assert.equal(reasonLabel("x".repeat(65)), "other");
});
