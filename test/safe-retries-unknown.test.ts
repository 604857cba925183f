// A payment with a payment id whose settlement the facilitator left undecided: the retry with the same
// PAYMENT-SIGNATURE gets the answer once the chain shows the payment, with a signed receipt, and the answer is
// then kept for that payment id, so a later retry with a new payment gets the same bytes and settles nothing.
// Against a stub facilitator and a stand-in Base RPC.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { decodeBase64Json, newBuyer, type TestService } from "./harness.ts";
import { payingWithId, signedHeaderWithId } from "./payment-id-buyer.ts";
import type { StubEvmRpc } from "./stub-evm-rpc.ts";
import { STUB_SETTLED, type StubFacilitator } from "./stub-facilitator.ts";
import { type StubbedService, startStubbedService } from "./stubbed-service.ts";
import { handlerRuns, resetHandlerRuns } from "./test-family.ts";

const TX = `0x${"cd".repeat(32)}` as const;
const ITEM = "/v1/test/item?mode=ok";

let stubbed: StubbedService;
let stub: StubFacilitator;
let rpc: StubEvmRpc;
let service: TestService;

before(async () => {
  stubbed = await startStubbedService();
  ({ stub, rpc, service } = stubbed);
});
after(() => stubbed.stop());

test("settlement unknown, then confirmed on chain: the answer gets its receipt and is kept for the payment id", async () => {
  resetHandlerRuns();
  stub.settle = { kind: "hang" };
  stub.onSettle = (body) => {
    const auth = body.paymentPayload.payload.authorization;
    rpc.spend(auth.from, auth.nonce, TX);
  };
  const buyer = newBuyer();
  const paymentId = generatePaymentId();
  const url = `${service.url}${ITEM}`;
  const header = await signedHeaderWithId(buyer, url, paymentId);

  const first = await fetch(url, { headers: { "payment-signature": header } });
  assert.equal(first.status, 502);
  assert.equal(((await first.json()) as { error: string }).error, "settlement_unknown");
  // Meanwhile a new payment with the same id is not settled: the first one's outcome is pending.
  stub.settle = STUB_SETTLED;
  const meanwhile = await payingWithId(buyer, paymentId)(url);
  assert.equal(meanwhile.status, 409);
  assert.equal(((await meanwhile.json()) as { error: string }).error, "payment_in_progress");

  const retry = await fetch(url, { headers: { "payment-signature": header } });
  assert.equal(retry.status, 200);
  const receipt = extractReceiptFromResponse(retry.clone());
  assert.ok(receipt, "the late delivery carries a signed receipt");
  const bytes = Buffer.from(await retry.arrayBuffer());
  const paymentResponse = retry.headers.get("payment-response");
  const payload = JSON.parse(Buffer.from(receipt.signature.split(".")[1] ?? "", "base64url").toString());
  assert.equal(payload.transaction, TX);

  const later = await payingWithId(buyer, paymentId)(url);
  assert.equal(later.status, 200);
  assert.ok(Buffer.from(await later.arrayBuffer()).equals(bytes));
  assert.equal(later.headers.get("payment-response"), paymentResponse);
  assert.equal(stub.calls.settle, 1, "settled once: neither the retry nor the new payment was settled");
  assert.equal(handlerRuns, 1);
});

test("settlement unknown, then expired unspent on chain: nothing charged and the payment id is free again", async () => {
  stub.settle = { kind: "hang" };
  stub.onSettle = undefined;
  const paymentId = generatePaymentId();
  const url = `${service.url}${ITEM}`;
  // A signed-looking payment with a chosen validBefore (the stub facilitator accepts any signature).
  const required = decodeBase64Json((await fetch(url)).headers.get("payment-required"));
  const accepted = (required.accepts as Array<Record<string, string>>)[0] as Record<string, string>;
  const from = newBuyer().address;
  const validBefore = Math.floor(Date.now() / 1000) + 300;
  const payment = (nonce: string) =>
    Buffer.from(
      JSON.stringify({
        x402Version: 2,
        accepted,
        extensions: { "payment-identifier": { info: { required: false, id: paymentId } } },
        payload: {
          signature: `0x${"11".repeat(65)}`,
          authorization: {
            from,
            to: accepted.payTo,
            value: accepted.amount,
            validAfter: "0",
            validBefore: String(validBefore),
            nonce,
          },
        },
      }),
    ).toString("base64");
  const first = payment(`0x${randomBytes(32).toString("hex")}`);
  assert.equal((await fetch(url, { headers: { "payment-signature": first } })).status, 502);

  rpc.chainTime = validBefore;
  const expired = await fetch(url, { headers: { "payment-signature": first } });
  assert.equal(expired.status, 402);
  assert.equal(((await expired.json()) as { error: string }).error, "payment_expired");

  stub.settle = STUB_SETTLED;
  const settlesBefore = stub.calls.settle;
  const fresh = await fetch(url, {
    headers: { "payment-signature": payment(`0x${randomBytes(32).toString("hex")}`) },
  });
  assert.equal(fresh.status, 200, "the id was freed: the new payment is answered and settled");
  assert.equal(stub.calls.settle, settlesBefore + 1);
  rpc.chainTime = undefined;
});
