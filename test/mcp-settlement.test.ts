// Paid MCP tools when the payment or the answer fails, against a stub facilitator: nothing is delivered without
// a settlement, nothing is settled for an error, and the result says so in the x402 MCP transport's shapes.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { newBuyer, type TestService } from "./harness.ts";
import { callTool, connectMcp, firstText, postToolsCall, signPayment, x402Error } from "./mcp-harness.ts";
import { STUB_SETTLE_FAILED, STUB_SETTLED, type StubFacilitator } from "./stub-facilitator.ts";
import { resetStub, type StubbedService, startStubbedService } from "./stubbed-service.ts";
import { handlerRuns } from "./test-family.ts";

let stubbed: StubbedService;
let stub: StubFacilitator;
let service: TestService;
let client: Client;

before(async () => {
  stubbed = await startStubbedService();
  ({ stub, service } = stubbed);
  client = await connectMcp(service.url);
});
after(async () => {
  await client.close();
  await stubbed.stop();
});
beforeEach(() => resetStub(stub));

async function paidCall(mode: string) {
  const required = x402Error(await callTool(client, "test_item", { mode })).data;
  return callTool(client, "test_item", { mode }, await signPayment(newBuyer(), required));
}

test("a settlement that fails delivers only the payment error, with the failed x402/payment-response", async () => {
  stub.settle = STUB_SETTLE_FAILED;
  const result = await paidCall("ok");
  assert.equal(result.isError, true);
  assert.doesNotMatch(firstText(result), /2026-11-20T00:00:00/, "the handler's answer is withheld");
  const required = result.structuredContent as Record<string, any>;
  assert.deepEqual(JSON.parse(firstText(result)), required);
  assert.equal(required.x402Version, 2);
  assert.equal(required.error, "invalid_exact_evm_transaction_failed");
  assert.equal(required.accepts[0].amount, "10000", "a new payment can be made from the same data");
  const error = x402Error(result);
  assert.equal(error.code, 402);
  assert.match(error.message, /^Payment settlement failed/);
  assert.equal(error.data.error, "invalid_exact_evm_transaction_failed");
  const settlement = result._meta?.["x402/payment-response"] as Record<string, unknown>;
  assert.equal(settlement.success, false);
  assert.equal(settlement.errorReason, "invalid_exact_evm_transaction_failed");
  assert.equal(handlerRuns, 1);
  assert.equal(stub.calls.settle, 1);
  const rows = await service.store.ledger.list();
  assert.equal(rows[0]?.state, "failed");
});

test("a payment the facilitator refuses: the requirements again with the reason, the tool never runs", async () => {
  stub.verify = {
    kind: "json",
    status: 200,
    body: {
      isValid: false,
      invalidReason: "insufficient_funds",
      payer: "0x0000000000000000000000000000000000000001",
    },
  };
  const result = await paidCall("ok");
  assert.equal(result.isError, true);
  assert.equal(x402Error(result).data.error, "insufficient_funds");
  assert.deepEqual([handlerRuns, stub.calls.settle], [0, 0]);
});

test("an answer that is not a success is not settled: the route's error, charged false", async () => {
  for (const [mode, status] of [
    ["missing", 404],
    ["queued", 404],
    ["throws", 500],
  ] as const) {
    const result = await paidCall(mode);
    assert.equal(result.isError, true, mode);
    const body = JSON.parse(firstText(result)) as Record<string, unknown>;
    assert.equal(body.charged, false, mode);
    assert.equal(result._meta?.["paycall/http-status"], status, mode);
    assert.equal(result._meta?.["x402/payment-response"], undefined);
  }
  assert.equal(stub.calls.settle, 0);
});

test("a settled answer comes with the facilitator's receipt", async () => {
  const result = await paidCall("ok");
  assert.notEqual(result.isError, true);
  assert.equal((result.structuredContent as Record<string, unknown>).mode, "ok");
  const receipt = result._meta?.["x402/payment-response"] as Record<string, unknown>;
  for (const [field, value] of Object.entries(STUB_SETTLED.body)) assert.equal(receipt[field], value, field);
  assert.equal(stub.calls.settle, 1);
});

test("MCP 2026-07-28 with org.x402/payment: a failed settlement is payment_required with the failed settlement in _meta", async () => {
  stub.settle = STUB_SETTLE_FAILED;
  const capabilities = { extensions: { "org.x402/payment": {} } };
  const rpc = (extra: Record<string, unknown> = {}) =>
    postToolsCall(
      service.url,
      "test_item",
      { mode: "ok" },
      {
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        ...extra,
      },
    );
  const required = await rpc();
  assert.equal(required.resultType, "payment_required");
  const payment = await signPayment(newBuyer(), required.paymentRequired);
  const failed = await rpc({ "x402/payment": payment });
  assert.equal(failed.resultType, "payment_required");
  assert.equal(failed.paymentRequired.error, "invalid_exact_evm_transaction_failed");
  assert.equal(failed.paymentRequired.accepts[0].amount, "10000");
  assert.equal(failed._meta["x402/payment-response"].success, false);
  assert.equal(failed.content, undefined, "nothing of the answer");
  assert.equal(stub.calls.settle, 1);
});
