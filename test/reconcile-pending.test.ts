// A ledger row left pending (the node stopped between writing it and recording the settlement) is
// reconciled without charging for an answer that was never delivered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { LedgerEntry } from "../src/store/ledger.ts";
import { creditWallet } from "../src/x402/local-facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/networks.ts";
import {
  decodeBase64Json,
  newBuyer,
  signedPaymentHeader,
  startTestService,
  type TestService,
} from "./harness.ts";

let service: TestService;
const FX = "/v1/macro/ecb/fx?pair=USD";

before(async () => {
  service = await startTestService();
});
after(() => service.stop());

async function pendingRow(createdAt = new Date()) {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const payload = decodeBase64Json(await signedPaymentHeader(buyer, service.url + FX));
  const requirements = payload.accepted as Record<string, string>;
  const entry: LedgerEntry = {
    sku: "ecb.fx",
    requestHash: "h",
    network: requirements.network as string,
    payer: buyer.address,
    amount: requirements.amount as string,
    asset: requirements.asset as string,
    payTo: requirements.payTo as string,
    transaction: null,
    responseSha256: "r",
    state: "pending",
    paymentPayload: payload,
    requirements,
  };
  const id = await service.store.ledger.record(entry, createdAt);
  return { id, buyer, payload, requirements };
}

const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

test("never settled: recorded as failed, and the buyer is not charged", async () => {
  const { id, buyer } = await pendingRow();
  assert.equal(await service.paywall()?.reconcile(id), "failed");
  const row = await service.store.ledger.get(id);
  assert.equal(row?.state, "failed");
  assert.match(row?.error_reason ?? "", /nothing was charged/);
  assert.equal(row?.payment_payload, null);
  assert.equal(await balance(buyer.address), 1_000_000n);
});

test("settled but not delivered: recorded as settled with a refund due, never settled twice", async () => {
  const { id, buyer, payload, requirements } = await pendingRow();
  const settle = await fetch(`${service.url}/local-facilitator/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements }),
  });
  assert.equal(((await settle.json()) as { success: boolean }).success, true);
  const afterSettle = await balance(buyer.address);
  assert.equal(afterSettle, 1_000_000n - BigInt(requirements.amount as string));

  assert.equal(await service.paywall()?.reconcile(id), "settled");
  const row = await service.store.ledger.get(id);
  assert.equal(row?.state, "settled");
  assert.match(row?.error_reason ?? "", /not delivered.*refund due/);
  assert.equal(await balance(buyer.address), afterSettle);
});

test("the worker's sweep reconciles rows left pending longer than the settle timeout, not younger ones", async () => {
  const old = await pendingRow(new Date(Date.now() - service.config.facilitatorTimeoutMs - 15_000));
  const young = await pendingRow();
  assert.equal(await service.paywall()?.sweepPending(), 1);
  await service.worker.drain();
  assert.equal((await service.store.ledger.get(old.id))?.state, "failed");
  assert.equal((await service.store.ledger.get(young.id))?.state, "pending");
});
