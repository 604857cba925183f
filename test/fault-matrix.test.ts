// The fault matrix: every way verify, the handler or settle can fail, against a stub facilitator.
// Rules checked each time: no body without a successful settle, no settle for a non-2xx answer.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import type { PaywallEvents } from "../src/observability/paywall-events.ts";
import { newBuyer, payingFetch, signedPaymentHeader, type TestService } from "./harness.ts";
import type { StubEvmRpc } from "./stub-evm-rpc.ts";
import { STUB_SETTLE_FAILED, STUB_VALID, type StubFacilitator } from "./stub-facilitator.ts";
import { resetStub, type StubbedService, startStubbedService } from "./stubbed-service.ts";
import { handlerRuns } from "./test-family.ts";

let stubbed: StubbedService;
let stub: StubFacilitator;
let rpc: StubEvmRpc;
let service: TestService;
before(async () => {
  stubbed = await startStubbedService();
  ({ stub, rpc, service } = stubbed);
});
after(() => stubbed.stop());
beforeEach(() => resetStub(stub));

async function buy(path: string) {
  const response = await payingFetch(newBuyer())(`${service.url}${path}`);
  return { response, body: (await response.json()) as Record<string, unknown> };
}

async function ledgerStates() {
  return (await service.store.ledger.list()).map((r) => r.state);
}

/** Buys, and checks a refused call leaves the ledger as it found it (its pending row went with its claim). */
async function buyRefused(path: string) {
  const before = (await ledgerStates()).length;
  const bought = await buy(path);
  assert.equal((await ledgerStates()).length, before, "no ledger row for a call that was not charged");
  return bought;
}

test("all good: verify, handler, settle, 200 with PAYMENT-RESPONSE", async () => {
  const { response, body } = await buy("/v1/test/item?mode=ok");
  assert.equal(response.status, 200);
  assert.equal(body.mode, "ok");
  assert.equal(decodePaymentResponseHeader(response.headers.get("payment-response") as string).success, true);
  assert.deepEqual([stub.calls.verify, stub.calls.settle, handlerRuns], [1, 1, 1]);
});

test("verify says invalid: 402, handler never runs, nothing settled", async () => {
  stub.verify = {
    kind: "json",
    status: 200,
    body: { isValid: false, invalidReason: "invalid_exact_evm_signature" },
  };
  const { response, body } = await buyRefused("/v1/test/item?mode=ok");
  assert.equal(response.status, 402);
  assert.equal(body.mode, undefined);
  assert.equal(body.error, "invalid_exact_evm_signature");
  assert.deepEqual([stub.calls.settle, handlerRuns], [0, 0]);
});

test("verify answers 400 with isValid false: 402 naming the reason", async () => {
  stub.verify = {
    kind: "json",
    status: 400,
    body: { isValid: false, invalidReason: "invalid_exact_evm_insufficient_balance" },
  };
  const { response, body } = await buyRefused("/v1/test/item?mode=ok");
  assert.equal(response.status, 402);
  assert.equal(body.error, "invalid_exact_evm_insufficient_balance");
  assert.deepEqual([stub.calls.settle, handlerRuns], [0, 0]);
});

test("verify 5xx: 502 JSON, not charged, handler never runs", async () => {
  stub.verify = { kind: "json", status: 503, body: { error: "down" } };
  const { response, body } = await buyRefused("/v1/test/item?mode=ok");
  assert.equal(response.status, 502);
  assert.equal(body.error, "facilitator_unavailable");
  assert.equal(body.charged, false);
  assert.deepEqual([stub.calls.settle, handlerRuns], [0, 0]);
});

test("verify timeout: 502 JSON, not charged", async () => {
  stub.verify = { kind: "hang" };
  const { response, body } = await buyRefused("/v1/test/item?mode=ok");
  assert.equal(response.status, 502);
  assert.equal(body.charged, false);
  assert.deepEqual([stub.calls.settle, handlerRuns], [0, 0]);
});

test("a payment refused for a facilitator fault can be sent again (its claim was released)", async () => {
  const buyer = newBuyer();
  const url = `${service.url}/v1/test/item?mode=ok`;
  const header = await signedPaymentHeader(buyer, url);
  stub.verify = { kind: "json", status: 503, body: { error: "down" } };
  assert.equal((await fetch(url, { headers: { "payment-signature": header } })).status, 502);
  stub.verify = STUB_VALID;
  assert.equal((await fetch(url, { headers: { "payment-signature": header } })).status, 200);
});

test("settle fails: 402, the handler's body is withheld, ledger says failed", async () => {
  stub.settle = STUB_SETTLE_FAILED;
  const { response, body } = await buy("/v1/test/item?mode=ok");
  assert.equal(response.status, 402);
  assert.equal(body.mode, undefined);
  assert.equal(body.error, "invalid_exact_evm_transaction_failed");
  assert.equal(
    decodePaymentResponseHeader(response.headers.get("payment-response") as string).success,
    false,
  );
  assert.equal(handlerRuns, 1);
  assert.deepEqual((await ledgerStates()).slice(0, 1), ["failed"]);
});

test("settle answers 4xx with success false: 402, no data", async () => {
  stub.settle = {
    kind: "json",
    status: 400,
    body: {
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      transaction: "",
      network: "eip155:8453",
    },
  };
  const { response, body } = await buy("/v1/test/item?mode=ok");
  assert.equal(response.status, 402);
  assert.equal(body.mode, undefined);
});

test("settle timeout: no data, ledger row 'unknown', decided by the chain and never settled again", async () => {
  stub.settle = { kind: "hang" };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, `0x${"ab".repeat(32)}`);
  };
  try {
    const { response, body } = await buy("/v1/test/item?mode=ok");
    assert.equal(response.status, 502);
    assert.equal(body.error, "settlement_unknown");
    assert.equal(body.mode, undefined);
    const [row] = await service.store.ledger.list({ state: "unknown" });
    assert.ok(row, "an unknown ledger row exists");
    assert.ok(await service.store.jobs.get("reconcile-settlement", String(row.id)));

    // The chain shows the authorization spent: the first settlement went through.
    assert.equal(await service.paywall()?.reconcile(row.id), "settled");
    const resolved = await service.store.ledger.get(row.id);
    assert.equal(resolved?.state, "settled");
    assert.equal(resolved?.transaction, `0x${"ab".repeat(32)}`);
    assert.equal(resolved?.payment_payload, null);
    assert.equal(stub.calls.settle, 1);
  } finally {
    stub.onSettle = undefined;
  }
});

test("handler 404 (not found): not settled, charged false", async () => {
  const { response, body } = await buyRefused("/v1/test/item?mode=missing");
  assert.equal(response.status, 404);
  assert.equal(body.charged, false);
  assert.equal(stub.calls.settle, 0);
  assert.equal(response.headers.get("payment-response"), null);
});

test("handler 404 (queued): not settled, charged false, retryAfterSec and Retry-After", async () => {
  const { response, body } = await buyRefused("/v1/test/item?mode=queued");
  assert.equal(response.status, 404);
  assert.equal(body.retryAfterSec, 60);
  assert.equal(response.headers.get("retry-after"), "60");
  assert.equal(stub.calls.settle, 0);
});

test("handler throws: 500 JSON, not settled, process survives", async () => {
  const { response, body } = await buyRefused("/v1/test/item?mode=throws");
  assert.equal(response.status, 500);
  assert.equal(body.charged, false);
  assert.equal(stub.calls.settle, 0);
  assert.equal((await fetch(`${service.url}/health`)).status, 200);
});

test("a garbage PAYMENT-SIGNATURE gets a fresh 402, never a 5xx", async () => {
  const response = await fetch(`${service.url}/v1/test/item?mode=ok`, {
    headers: { "payment-signature": "not base64 !!" },
  });
  assert.equal(response.status, 402);
  assert.ok(response.headers.get("payment-required"));
  assert.equal(stub.calls.verify, 0);
});

test("a payment for another price does not match and is refused before verify", async () => {
  const header = await signedPaymentHeader(newBuyer(), `${service.url}/v1/test/dynamic?units=2`);
  const response = await fetch(`${service.url}/v1/test/dynamic?units=3`, {
    headers: { "payment-signature": header },
  });
  assert.equal(response.status, 402);
  assert.equal(((await response.json()) as { error: string }).error, "no_matching_requirements");
  assert.equal(stub.calls.verify, 0);
});

test("a dynamic price is the same on the 402 and on the paid retry", async () => {
  const challenge = await fetch(`${service.url}/v1/test/dynamic?units=7`);
  const accepts = ((await challenge.json()) as { accepts: Array<{ amount: string }> }).accepts;
  assert.equal(accepts[0]?.amount, "7000");
  const { response, body } = await buy("/v1/test/dynamic?units=7");
  assert.equal(response.status, 200);
  assert.equal(body.units, 7);
});

test("a ledger write failing after a successful settle still delivers the paid answer", async () => {
  const ledger = service.store.ledger;
  const original = ledger.resolve.bind(ledger);
  let failed = 0;
  ledger.resolve = async () => {
    failed++;
    throw new Error("disk full");
  };
  try {
    const { response, body } = await buy("/v1/test/item?mode=ok");
    assert.equal(response.status, 200);
    assert.equal(body.mode, "ok");
    assert.ok(response.headers.get("payment-response"));
    assert.equal(failed, 1);
  } finally {
    ledger.resolve = original;
  }
});

test("a claim the store cannot write: 500, nothing settled or charged (verify, which moves nothing, came first)", async () => {
  const ledger = service.store.ledger;
  const original = ledger.claim.bind(ledger);
  ledger.claim = async () => {
    throw new Error("disk full");
  };
  try {
    const { response, body } = await buy("/v1/test/item?mode=ok");
    assert.equal(response.status, 500);
    assert.equal(body.mode, undefined);
    assert.deepEqual([stub.calls.verify, stub.calls.settle, handlerRuns], [1, 0, 0]);
  } finally {
    ledger.claim = original;
  }
});

test("a fault right after the settle call keeps the payment's row and claim, for the chain to decide", async () => {
  const paywall = service.paywall();
  assert.ok(paywall);
  const original = (paywall as unknown as { events: PaywallEvents | undefined }).events;
  paywall.observe({
    facilitatorError: () => {},
    extensionResponses: () => {},
    paidCallRefused: () => {},
    settleEnded: () => {
      throw new Error("metrics exploded");
    },
  });
  try {
    const buyer = newBuyer();
    const url = `${service.url}/v1/test/item?mode=ok`;
    const header = await signedPaymentHeader(buyer, url);
    const response = await fetch(url, { headers: { "payment-signature": header } });
    assert.equal(response.status, 500);
    assert.equal(stub.calls.settle, 1);
    const [row] = await service.store.ledger.list({ limit: 1 });
    assert.equal(row?.state, "pending", "the settle may have moved the money: the row stays for the chain");
    // The same payment is not taken as new: nothing is verified or settled again.
    const again = await fetch(url, { headers: { "payment-signature": header } });
    assert.notEqual(again.status, 200);
    assert.equal(stub.calls.settle, 1);
  } finally {
    if (original) paywall.observe(original);
  }
});
