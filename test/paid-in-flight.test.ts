// Paid calls in flight: with a slow facilitator many paid calls are held at once (nothing caps them below the
// bound), and past PAID_CALLS_MAX_IN_FLIGHT a paid request is refused with 503 before verify, nothing charged,
// while unpaid requests still get their 402. Runs on PostgreSQL too (PAYCALL_TEST_DATABASE_URL).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { newBuyer, signedPaymentHeader } from "./harness.ts";
import { callTool, connectMcp, firstText, signPayment, x402Error } from "./mcp-harness.ts";
import { STUB_SETTLED, STUB_VALID } from "./stub-facilitator.ts";
import { resetStub, type StubbedService, startStubbedService } from "./stubbed-service.ts";

const ADMIN_TOKEN = "in-flight-test-admin-token";
const ITEM = "/v1/test/item?mode=ok";
/** Long enough that every call of a burst is still waiting on the facilitator when the figures are read. */
const SLOW_MS = 1500;

function slowService(env: Record<string, string> = {}): Promise<StubbedService> {
  return startStubbedService({ ADMIN_TOKEN, FACILITATOR_TIMEOUT_MS: "10000", ...env });
}

/** One Prometheus sample's value, by its full name with labels as written. */
async function metric(stubbed: StubbedService, name: string): Promise<number | undefined> {
  const response = await fetch(`${stubbed.service.url}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const text = await response.text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** Signed payments of as many new buyers, made before any is sent so the burst is sent at once. */
function payments(stubbed: StubbedService, count: number): Promise<string[]> {
  const url = `${stubbed.service.url}${ITEM}`;
  return Promise.all(Array.from({ length: count }, () => signedPaymentHeader(newBuyer(), url)));
}

function pay(stubbed: StubbedService, header: string): Promise<Response> {
  return fetch(`${stubbed.service.url}${ITEM}`, { headers: { "payment-signature": header } });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the default bound", () => {
  let stubbed: StubbedService;
  before(async () => {
    stubbed = await slowService();
  });
  after(() => stubbed.stop());

  test("more than 16 paid calls are in flight at once against a slow facilitator", async () => {
    const { stub } = stubbed;
    resetStub(stub);
    const burst = 40;
    const headers = await payments(stubbed, burst);
    stub.verify = { ...STUB_VALID, delayMs: SLOW_MS };
    stub.settle = { ...STUB_SETTLED, delayMs: SLOW_MS };
    const answers = Promise.all(headers.map((h) => pay(stubbed, h)));
    await until(() => stub.open.verify === burst, `${burst} verifies open at the facilitator`);
    const inFlight = await metric(stubbed, "paycall_paid_calls_in_flight");
    const responses = await answers;
    assert.deepEqual(
      responses.map((r) => r.status),
      headers.map(() => 200),
    );
    assert.ok(stub.peak.verify > 16, `the facilitator saw ${stub.peak.verify} verifies at once`);
    assert.ok(stub.peak.settle > 16, `the facilitator saw ${stub.peak.settle} settles at once`);
    assert.equal(inFlight, burst);
    assert.equal(await metric(stubbed, "paycall_paid_calls_in_flight"), 0);
    assert.equal(
      (await stubbed.service.store.ledger.list()).filter((r) => r.state === "settled").length,
      burst,
    );
  });
});

describe("past PAID_CALLS_MAX_IN_FLIGHT", () => {
  let stubbed: StubbedService;
  before(async () => {
    stubbed = await slowService({ PAID_CALLS_MAX_IN_FLIGHT: "3" });
  });
  after(() => stubbed.stop());

  test("the 4th paid request is refused before verify with 503 and Retry-After; its retry succeeds", async () => {
    const { stub, service } = stubbed;
    resetStub(stub);
    const [first, second, third, fourth] = (await payments(stubbed, 4)) as [string, string, string, string];
    stub.verify = { ...STUB_VALID, delayMs: SLOW_MS };
    const held = [first, second, third].map((h) => pay(stubbed, h));
    await until(() => stub.calls.verify === 3, "3 verifies at the facilitator");

    const refused = await pay(stubbed, fourth);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(refused.headers.get("payment-response"), null);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body.error, "payments_busy");
    assert.equal(body.charged, false);
    assert.equal(body.retryAfterSec, 1);
    assert.equal(stub.calls.verify, 3, "no verify for the refused request");

    // Unpaid requests are not paid calls: their 402 still comes while every slot is held.
    assert.equal((await fetch(`${service.url}${ITEM}`)).status, 402);
    assert.equal(await metric(stubbed, "paycall_paid_calls_in_flight"), 3);
    assert.equal(await metric(stubbed, "paycall_paid_calls_in_flight_limit"), 3);

    assert.deepEqual(
      (await Promise.all(held)).map((r) => r.status),
      [200, 200, 200],
    );
    assert.equal(stub.calls.settle, 3, "nothing settled for the refused request");
    assert.equal((await service.store.ledger.list()).length, 3, "no ledger row for the refused request");

    const retried = await pay(stubbed, fourth);
    assert.equal(retried.status, 200);
    assert.ok(retried.headers.get("payment-response"));
    assert.deepEqual([stub.calls.verify, stub.calls.settle], [4, 4]);
    assert.equal((await service.store.ledger.list()).filter((r) => r.state === "settled").length, 4);
    assert.equal(await metric(stubbed, 'paycall_paid_calls_refused_total{sku="test.item"}'), 1);
    assert.equal(await metric(stubbed, "paycall_paid_calls_in_flight"), 0);
  });

  test("the operator sees the limit, the refusals and this node's calls in flight", async () => {
    const response = await fetch(`${stubbed.service.url}/admin/stats`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const stats = (await response.json()) as {
      paidCallsInFlight: { limit: number; refusedInPeriod: number; node?: Record<string, unknown> };
      products: Array<{ sku: string; refusedBusy: number }>;
    };
    assert.equal(stats.paidCallsInFlight.limit, 3);
    assert.equal(stats.paidCallsInFlight.refusedInPeriod, 1);
    assert.deepEqual(stats.paidCallsInFlight.node, {
      inFlight: 0,
      limit: 3,
      refused: 1,
      facilitator: { pending: 0, running: 0 },
    });
    assert.equal(stats.products.find((p) => p.sku === "test.item")?.refusedBusy, 1);
  });

  test("an MCP tool call past the bound gets the same refusal as an error result, before verify", async () => {
    const { stub } = stubbed;
    resetStub(stub);
    const client = await connectMcp(stubbed.service.url);
    try {
      const headers = await payments(stubbed, 3);
      // The tool's requirements come from an unpaid call, answered while every slot is held too.
      const required = x402Error(await callTool(client, "test_item", { mode: "ok" })).data;
      const payment = await signPayment(newBuyer(), required);
      stub.verify = { ...STUB_VALID, delayMs: SLOW_MS };
      const held = headers.map((h) => pay(stubbed, h));
      await until(() => stub.calls.verify === 3, "3 verifies at the facilitator");
      const result = await callTool(client, "test_item", { mode: "ok" }, payment);
      assert.equal(result.isError, true);
      assert.equal(result._meta?.["paycall/http-status"], 503);
      const body = JSON.parse(firstText(result)) as Record<string, unknown>;
      assert.deepEqual([body.error, body.charged, body.retryAfterSec], ["payments_busy", false, 1]);
      assert.equal(stub.calls.verify, 3, "no verify for the refused tool call");
      assert.deepEqual(
        (await Promise.all(held)).map((r) => r.status),
        [200, 200, 200],
      );
    } finally {
      await client.close();
    }
  });
});
