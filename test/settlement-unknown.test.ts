// A settlement whose outcome the facilitator did not tell (its reply lost, a timeout) is never settled
// again: the chain decides. The buyer retrying with the same payment gets 503 while the chain shows
// nothing, the answer with a receipt once it shows the payment, and 402 "expired, not charged" when the
// authorization ran out unspent. Against a stub facilitator and a stand-in Base RPC.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, beforeEach, test } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import {
  decodeBase64Json,
  newBuyer,
  signedPaymentHeader,
  startListeningService,
  type TestService,
} from "./harness.ts";
import { type StubEvmRpc, startStubEvmRpc } from "./stub-evm-rpc.ts";
import { STUB_SETTLED, STUB_VALID, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { handlerRuns, resetHandlerRuns, slowFamily, testFamily } from "./test-family.ts";

const TX = `0x${"cd".repeat(32)}` as const;
const ITEM = "/v1/test/item?mode=ok";

let stub: StubFacilitator;
let rpc: StubEvmRpc;
let service: TestService;

before(async () => {
  stub = await startStubFacilitator();
  rpc = await startStubEvmRpc();
  // On a listener: in process "transfer never made" answered 502, not 503; to be understood before it moves.
  service = await startListeningService(
    {
      FACILITATOR_URL: stub.url,
      PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
      FACILITATOR_TIMEOUT_MS: "300",
      BASE_RPC_URL: rpc.url,
      // The test decides when the worker runs (drain, reconcile), so no background poll races it.
      WORKER_POLL_MS: "60000",
    },
    [testFamily, slowFamily],
  );
});
after(async () => {
  await service.stop();
  await stub.close();
  await rpc.close();
});
beforeEach(() => {
  stub.verify = STUB_VALID;
  stub.settle = STUB_SETTLED;
  stub.onSettle = undefined;
  stub.calls.settle = 0;
  rpc.down = false;
  rpc.logs = true;
  rpc.chainTime = undefined;
  resetHandlerRuns();
});

/** The facilitator takes the settlement and broadcasts the transfer, but its reply never arrives. */
function replyLostAfterTransfer(transaction = TX) {
  stub.settle = { kind: "hang" };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, transaction);
  };
}

/** A signed-looking EIP-3009 payment with a chosen validBefore (the stub facilitator accepts any). */
async function paymentValidUntil(path: string, validBefore: number): Promise<string> {
  const challenge = await fetch(`${service.url}${path}`);
  const accepted = (decodeBase64Json(challenge.headers.get("payment-required")).accepts as any[])[0];
  const payload = {
    x402Version: 2,
    accepted,
    payload: {
      signature: `0x${"11".repeat(65)}`,
      authorization: {
        from: newBuyer().address,
        to: accepted.payTo,
        value: accepted.amount,
        validAfter: "0",
        validBefore: String(validBefore),
        nonce: `0x${randomBytes(32).toString("hex")}`,
      },
    },
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

const pay = (path: string, header: string) =>
  fetch(`${service.url}${path}`, { headers: { "payment-signature": header } });

async function rowOf(header: string) {
  const nonce = (decodeBase64Json(header).payload as any).authorization.nonce as string;
  const rows = await service.store.db.selectFrom("ledger").selectAll().execute();
  return rows.find((r) => r.nonce_key?.endsWith(nonce.toLowerCase()));
}

test("reply lost after the transfer: no data, then the retry gets the held answer and the transaction, settled once", async () => {
  replyLostAfterTransfer();
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  const first = await pay(ITEM, header);
  assert.equal(first.status, 502);
  const body = (await first.json()) as Record<string, unknown>;
  assert.equal(body.error, "settlement_unknown");
  assert.equal(body.mode, undefined);
  assert.equal(first.headers.get("retry-after"), "15");
  assert.match(String(body.message), /same PAYMENT-SIGNATURE/);
  assert.equal((await rowOf(header))?.state, "unknown");

  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal(((await retry.json()) as { mode: string }).mode, "ok");
  const receipt = decodePaymentResponseHeader(retry.headers.get("payment-response") as string);
  assert.equal(receipt.success, true);
  assert.equal(receipt.transaction, TX);
  assert.equal(stub.calls.settle, 1, "never settled a second time");
  assert.equal(handlerRuns, 1, "the held answer, not a second run");
  const row = await rowOf(header);
  assert.deepEqual(
    [row?.state, row?.transaction, row?.delivered, row?.held_response],
    ["settled", TX, 1, null],
  );

  const again = await pay(ITEM, header);
  assert.equal(again.status, 402);
  assert.equal(((await again.json()) as { error: string }).error, "payment_already_used");
});

test("transfer never made: 503 while the authorization is valid, then 402 expired and nothing charged", async () => {
  stub.settle = { kind: "hang" };
  const validBefore = Math.floor(Date.now() / 1000) + 300;
  const header = await paymentValidUntil(ITEM, validBefore);
  assert.equal((await pay(ITEM, header)).status, 502);

  const waiting = await pay(ITEM, header);
  assert.equal(waiting.status, 503);
  const body = (await waiting.json()) as Record<string, unknown>;
  assert.equal(body.error, "payment_confirming");
  assert.match(String(body.message), /being confirmed/);
  assert.ok(Number(waiting.headers.get("retry-after")) > 0);
  assert.equal(body.mode, undefined);
  assert.equal((await rowOf(header))?.state, "unknown");

  rpc.chainTime = validBefore; // the first block at which the authorization can no longer be used
  const expired = await pay(ITEM, header);
  assert.equal(expired.status, 402);
  assert.equal(((await expired.json()) as { error: string }).error, "payment_expired");
  assert.equal(stub.calls.settle, 1);
  const row = await rowOf(header);
  assert.equal(row?.state, "failed");
  assert.match(row?.error_reason ?? "", /not charged/);
  assert.equal(row?.held_response, null);
});

test("RPC down: the row stays unknown, the retry gets 503, and the status raises an alarm until it answers", async () => {
  replyLostAfterTransfer();
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  assert.equal((await pay(ITEM, header)).status, 502);
  rpc.down = true;

  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 503);
  assert.equal(retry.headers.get("retry-after"), "30");
  const row = await rowOf(header);
  assert.equal(row?.state, "unknown");
  assert.match(row?.chain_error ?? "", /503|unavailable/i);
  assert.equal(await service.paywall()?.reconcile(row?.id as number), "unknown");
  const status = await service.paywall()?.settlementStatus();
  assert.match(status?.alarm ?? "", /cannot be checked on chain/);
  assert.deepEqual(status?.chain.networks, ["eip155:8453"]);
  assert.ok(!(status?.alarm ?? "").includes(rpc.url), "the endpoint's URL (it may hold a key) is not shown");

  rpc.down = false;
  assert.equal(await service.paywall()?.reconcile(row?.id as number), "settled");
  assert.equal((await service.paywall()?.settlementStatus())?.alarm, null);
});

test("the worker decides the row; an undelivered settlement becomes a refund due after a day, until delivered", async () => {
  replyLostAfterTransfer();
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  assert.equal((await pay(ITEM, header)).status, 502);
  const id = (await rowOf(header))?.id as number;
  await service.paywall()?.sweepPending();
  await service.worker.drain();
  const row = await service.store.ledger.get(id);
  assert.deepEqual([row?.state, row?.transaction, row?.delivered], ["settled", TX, 0]);

  const tomorrow = new Date(Date.now() + 25 * 3600_000);
  assert.ok(
    (await service.store.ledger.refundsDue(tomorrow)).some((r) => r.id === id && r.transaction === TX),
  );
  assert.ok(!(await service.store.ledger.refundsDue()).some((r) => r.id === id), "not before a day");

  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal(stub.calls.settle, 1);
  assert.ok(!(await service.store.ledger.refundsDue(tomorrow)).some((r) => r.id === id));
});

test("a facilitator answering settlement_pending with a transaction: that transaction is the one confirmed", async () => {
  const pendingTx = `0x${"ef".repeat(32)}` as const;
  stub.settle = {
    kind: "json",
    status: 200,
    body: {
      success: false,
      errorReason: "settlement_pending",
      transaction: pendingTx,
      network: "eip155:8453",
    },
  };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, pendingTx);
  };
  rpc.logs = false; // the transaction comes from the facilitator's answer, not from the logs
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  const first = await pay(ITEM, header);
  assert.equal(first.status, 502);
  assert.equal((await rowOf(header))?.transaction, pendingTx);
  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal(
    decodePaymentResponseHeader(retry.headers.get("payment-response") as string).transaction,
    pendingTx,
  );
});

test("a 5xx settle answer is uncertain too, and the spend is found even when the RPC keeps no logs", async () => {
  stub.settle = {
    kind: "json",
    status: 500,
    body: { success: false, errorReason: "unexpected_settle_error", transaction: "", network: "eip155:8453" },
  };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, TX);
  };
  rpc.logs = false;
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  assert.equal((await pay(ITEM, header)).status, 502);
  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal((await rowOf(header))?.state, "settled");
  assert.equal(stub.calls.settle, 1);
});

test("a row left pending by a stopped process is decided by the chain, and the answer produced again", async () => {
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  const auth = (decodeBase64Json(header).payload as any).authorization;
  stub.settle = { kind: "hang" };
  assert.equal((await pay(ITEM, header)).status, 502);
  const row = await rowOf(header);
  assert.ok(row);
  // As a node killed mid-settlement leaves it: pending, nothing held, written an hour ago.
  await service.store.db
    .updateTable("ledger")
    .set({ state: "pending", held_response: null, created_at: new Date(Date.now() - 3600_000).toISOString() })
    .where("id", "=", row.id)
    .execute();
  rpc.spend(auth.from, auth.nonce, TX);
  resetHandlerRuns();
  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal(handlerRuns, 1, "produced again: nothing was held");
  assert.equal(decodePaymentResponseHeader(retry.headers.get("payment-response") as string).transaction, TX);
  assert.equal(stub.calls.settle, 1);
});

test("a handler that would leave too little time to settle before validBefore: 504, nothing settled", async () => {
  const path = "/v1/slow/item?ms=3000";
  const header = await paymentValidUntil(path, Math.floor(Date.now() / 1000) + 12);
  const response = await pay(path, header);
  assert.equal(response.status, 504);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.charged, false);
  assert.equal(body.ms, undefined);
  assert.equal(stub.calls.settle, 0);
  assert.equal(await rowOf(header), undefined, "the pending row went with the claim");
});

test("a payment's pending row is open from its claim: a call still in its handler has one, a stop there leaves it", async () => {
  const path = "/v1/slow/item?ms=600";
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${path}`);
  const call = pay(path, header);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const during = await rowOf(header);
  assert.deepEqual([during?.state, during?.delivered], ["pending", 0]);
  // It keeps what the chain check reads, not the extensions the payload echoes.
  const kept = JSON.parse(during?.payment_payload ?? "{}");
  const signed = decodeBase64Json(header) as any;
  assert.deepEqual(kept.payload, signed.payload);
  assert.deepEqual(kept.accepted, signed.accepted);
  assert.equal(kept.extensions, undefined);
  assert.ok(signed.extensions, "the buyer's payload did echo extensions");
  // Presented again meanwhile: refused as a reuse, never verified or settled twice, and not told to pay again.
  const again = await pay(path, header);
  assert.equal(again.status, 402);
  const refusal = (await again.json()) as { error: string; message: string };
  assert.equal(refusal.error, "payment_already_used");
  assert.match(refusal.message, /never charged twice.*retry with the same PAYMENT-SIGNATURE/);
  assert.equal(again.headers.get("retry-after"), "15");
  assert.equal((await call).status, 200);
  const settled = await rowOf(header);
  assert.deepEqual([settled?.id, settled?.state, settled?.delivered], [during?.id, "settled", 1]);
  assert.match(settled?.response_sha256 ?? "", /^[0-9a-f]{64}$/);
  assert.equal(stub.calls.settle, 1);
});

test("the purge keeps the claim of a payment still uncertain, so its retry is never settled anew", async () => {
  replyLostAfterTransfer();
  const header = await signedPaymentHeader(newBuyer(), `${service.url}${ITEM}`);
  assert.equal((await pay(ITEM, header)).status, 502);
  await service.store.nonces.purgeBefore(new Date(Date.now() + 60_000));
  const retry = await pay(ITEM, header);
  assert.equal(retry.status, 200);
  assert.equal(stub.calls.settle, 1);
  // Delivered now: its claim may go like any other.
  assert.ok((await service.store.nonces.purgeBefore(new Date(Date.now() + 60_000))) >= 1);
});
