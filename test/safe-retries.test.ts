// Safe retries with the payment-identifier extension: a buyer who paid but lost the answer retries with the
// same payment id (the same PAYMENT-SIGNATURE, or a new payment) and gets the same bytes and PAYMENT-RESPONSE,
// and the local facilitator's USDC moves once. Another request with that id is a 409.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { extractReceiptFromResponse } from "@x402/extensions/offer-receipt";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { PrivateKeyAccount } from "viem/accounts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { decodeBase64Json, newBuyer, startTestService, type TestService } from "./harness.ts";
import { payingWithId, signedHeaderWithId } from "./payment-id-buyer.ts";
import { slowFamily, testFamily } from "./test-family.ts";

const ITEM = "/v1/test/item?mode=ok";

let service: TestService;

before(async () => {
  service = await startTestService({}, [testFamily, slowFamily]);
});
after(() => service.stop());

async function fundedBuyer(): Promise<PrivateKeyAccount> {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  return buyer;
}

function balance(buyer: PrivateKeyAccount): Promise<bigint> {
  return service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
}

/** Paid calls of the test item counted today for the operator view. */
async function paidCountedToday(): Promise<number> {
  await service.store.dailyCounts.flush();
  const today = new Date().toISOString().slice(0, 10);
  const rows = await service.store.dailyCounts.between(today, today);
  return rows.find((r) => r.sku === "test.item" && r.kind === "paid")?.count ?? 0;
}

async function settlementsOf(buyer: PrivateKeyAccount): Promise<number> {
  const rows = await service.store.ledger.list({ limit: 1000 });
  return rows.filter((r) => r.payer?.toLowerCase() === buyer.address.toLowerCase() && r.state === "settled")
    .length;
}

async function answer(
  response: Response,
): Promise<{ status: number; bytes: Buffer; paymentResponse: string | null }> {
  return {
    status: response.status,
    bytes: Buffer.from(await response.arrayBuffer()),
    paymentResponse: response.headers.get("payment-response"),
  };
}

test("the same PAYMENT-SIGNATURE sent again: the same bytes and PAYMENT-RESPONSE, charged once", async () => {
  const buyer = await fundedBuyer();
  const start = await balance(buyer);
  const url = `${service.url}${ITEM}`;
  const header = await signedHeaderWithId(buyer, url, generatePaymentId());
  const countedBefore = await paidCountedToday();
  const payload = decodeBase64Json(header) as { extensions?: Record<string, { info?: { id?: string } }> };
  assert.match(payload.extensions?.["payment-identifier"]?.info?.id ?? "", /^pay_[0-9a-f]{32}$/);

  const first = await answer(await fetch(url, { headers: { "payment-signature": header } }));
  assert.equal(first.status, 200);
  assert.ok(first.paymentResponse);
  const again = await answer(await fetch(url, { headers: { "payment-signature": header } }));
  assert.equal(again.status, 200);
  assert.ok(again.bytes.equals(first.bytes), "identical body bytes");
  assert.equal(again.paymentResponse, first.paymentResponse, "the same PAYMENT-RESPONSE, receipt included");
  assert.equal(start - (await balance(buyer)), 10_000n, "charged once");
  assert.equal(await settlementsOf(buyer), 1);
  assert.equal((await paidCountedToday()) - countedBefore, 1, "the replayed answer is not another paid call");
});

test("a retry with the same payment id and a new signed payment: the same answer, the new payment is not settled", async () => {
  const buyer = await fundedBuyer();
  const paymentId = generatePaymentId();
  const url = `${service.url}/v1/slow/item?ms=1`;
  const first = await answer(await payingWithId(buyer, paymentId)(url));
  assert.equal(first.status, 200);
  const afterFirst = await balance(buyer);

  const retry = await payingWithId(buyer, paymentId)(url);
  assert.ok(extractReceiptFromResponse(retry.clone()), "the retry carries the original receipt");
  const again = await answer(retry);
  assert.equal(again.status, 200);
  assert.ok(again.bytes.equals(first.bytes), "the handler did not run again (its timestamp is the same)");
  assert.equal(again.paymentResponse, first.paymentResponse);
  assert.equal(await balance(buyer), afterFirst, "no money moved for the retry");
  assert.equal(await settlementsOf(buyer), 1);
});

test("the same payment id for another request is a 409 and charges nothing", async () => {
  const buyer = await fundedBuyer();
  const paymentId = generatePaymentId();
  assert.equal((await payingWithId(buyer, paymentId)(`${service.url}/v1/slow/item?ms=2`)).status, 200);
  const before = await balance(buyer);
  const other = await payingWithId(buyer, paymentId)(`${service.url}/v1/slow/item?ms=3`);
  assert.equal(other.status, 409);
  const body = (await other.json()) as Record<string, unknown>;
  assert.equal(body.error, "payment_identifier_conflict");
  assert.equal(body.charged, false);
  assert.equal(await balance(buyer), before);
  assert.equal(await settlementsOf(buyer), 1);
});

test("the same payment id from another wallet is that wallet's own: it is answered and charged", async () => {
  const paymentId = generatePaymentId();
  const [alice, bob] = [await fundedBuyer(), await fundedBuyer()];
  assert.equal((await payingWithId(alice, paymentId)(`${service.url}/v1/slow/item?ms=4`)).status, 200);
  const before = await balance(bob);
  assert.equal((await payingWithId(bob, paymentId)(`${service.url}/v1/slow/item?ms=4`)).status, 200);
  assert.equal(before - (await balance(bob)), 10_000n);
});

test("an answer that is not a 2xx frees the payment id: nothing charged, the id works afterwards", async () => {
  const buyer = await fundedBuyer();
  const start = await balance(buyer);
  const paymentId = generatePaymentId();
  const missing = await payingWithId(buyer, paymentId)(`${service.url}/v1/test/item?mode=missing`);
  assert.equal(missing.status, 404);
  assert.equal(await balance(buyer), start);
  assert.equal((await payingWithId(buyer, paymentId)(`${service.url}${ITEM}`)).status, 200);
  assert.equal(start - (await balance(buyer)), 10_000n);
});

test("two requests at once with one payment id: one is answered and settled, the other told to retry", async () => {
  const buyer = await fundedBuyer();
  const start = await balance(buyer);
  const paymentId = generatePaymentId();
  const url = `${service.url}/v1/slow/item?ms=400`;
  const [a, b] = await Promise.all([
    payingWithId(buyer, paymentId)(url).then(answer),
    new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
      payingWithId(buyer, paymentId)(url).then(answer),
    ),
  ]);
  assert.deepEqual([a.status, b.status].sort(), [200, 409]);
  const refused = a.status === 409 ? a : b;
  assert.equal(JSON.parse(refused.bytes.toString()).error, "payment_in_progress");
  assert.equal(start - (await balance(buyer)), 10_000n, "one settlement");
  const later = await answer(await payingWithId(buyer, paymentId)(url));
  assert.ok(later.bytes.equals((a.status === 200 ? a : b).bytes));
  assert.equal(start - (await balance(buyer)), 10_000n);
});

test("a malformed payment id is refused with 400 naming it, before any charge", async () => {
  const buyer = await fundedBuyer();
  const start = await balance(buyer);
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(buyer));
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    const declared = paymentRequired.extensions?.["payment-identifier"] as { info: { id?: string } };
    declared.info.id = "short!";
  });
  const response = await wrapFetchWithPayment(fetch, client)(`${service.url}${ITEM}`);
  assert.equal(response.status, 400);
  const body = (await response.json()) as Record<string, unknown>;
  assert.match(String(body.parameter), /payment-identifier/);
  assert.equal(body.charged, false);
  assert.equal(await balance(buyer), start);
});

test("kept answers are sealed at rest and purged after the retention window", async () => {
  const buyer = await fundedBuyer();
  const paymentId = generatePaymentId();
  const url = `${service.url}/v1/test/item?mode=ok`;
  const header = await signedHeaderWithId(buyer, url, paymentId);
  const first = await answer(await fetch(url, { headers: { "payment-signature": header } }));
  assert.equal(first.status, 200);

  const row = await service.store.paidAnswers.find(paymentId, buyer.address);
  assert.equal(row?.state, "stored");
  assert.ok(row?.sealed_answer);
  assert.ok(!Buffer.from(row.sealed_answer, "base64").includes("fetchedAt"), "the body is not in clear");
  assert.ok(!row.sealed_answer.includes(first.paymentResponse ?? "-"));

  // The worker's purge drops it once the window has passed; the payment is then simply used.
  await service.worker.purge(new Date(Date.now() + service.config.paidAnswerRetentionMs + 1000));
  assert.equal(await service.store.paidAnswers.find(paymentId, buyer.address), undefined);
  const late = await fetch(url, { headers: { "payment-signature": header } });
  assert.equal(late.status, 402);
  assert.equal(((await late.json()) as { error: string }).error, "payment_already_used");
});
