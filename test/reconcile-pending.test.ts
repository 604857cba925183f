// A ledger row left pending (the node stopped between writing it and recording the settlement) is decided
// by the chain (here the local facilitator's ledger), never by settling again: spent means settled with the
// answer undelivered (a refund due after a day), unspent and expired means not charged, else ask later.
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

async function pendingRow(createdAt = new Date(), options: { expired?: boolean } = {}) {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const payload = decodeBase64Json(await signedPaymentHeader(buyer, service.url + FX));
  const requirements = payload.accepted as Record<string, string>;
  const stored = options.expired
    ? {
        ...payload,
        payload: {
          ...(payload.payload as Record<string, unknown>),
          authorization: {
            ...(payload.payload as { authorization: Record<string, string> }).authorization,
            validBefore: String(Math.floor(Date.now() / 1000) - 1),
          },
        },
      }
    : payload;
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
    paymentPayload: stored,
    requirements,
  };
  const id = await service.store.ledger.record(entry, createdAt);
  return { id, buyer, payload, requirements };
}

const balance = (address: string) => service.store.localUsdc.balance(NETWORKS.base.caip2, address);

test("never settled: undecided while the authorization is valid, not charged once it expired", async () => {
  const open = await pendingRow();
  assert.equal(await service.paywall()?.reconcile(open.id), "unknown");
  assert.equal((await service.store.ledger.get(open.id))?.state, "pending");

  const { id, buyer } = await pendingRow(new Date(), { expired: true });
  assert.equal(await service.paywall()?.reconcile(id), "failed");
  const row = await service.store.ledger.get(id);
  assert.equal(row?.state, "failed");
  assert.match(row?.error_reason ?? "", /not charged/);
  assert.equal(row?.payment_payload, null);
  assert.equal(await balance(buyer.address), 1_000_000n);
});

test("settled but not delivered: settled with its transaction, a refund due after a day, never settled twice", async () => {
  const { id, buyer, payload, requirements } = await pendingRow();
  const settle = await fetch(`${service.url}/local-facilitator/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements }),
  });
  const settled = (await settle.json()) as { success: boolean; transaction: string };
  assert.equal(settled.success, true);
  const afterSettle = await balance(buyer.address);
  assert.equal(afterSettle, 1_000_000n - BigInt(requirements.amount as string));

  assert.equal(await service.paywall()?.reconcile(id), "settled");
  const row = await service.store.ledger.get(id);
  assert.deepEqual([row?.state, row?.transaction, row?.delivered], ["settled", settled.transaction, 0]);
  assert.match(row?.error_reason ?? "", /not yet delivered/);
  assert.equal(await balance(buyer.address), afterSettle);
  const refunds = await service.store.ledger.refundsDue(new Date(Date.now() + 25 * 3600_000));
  assert.ok(refunds.some((r) => r.id === id && r.transaction === settled.transaction));
});

test("the worker's sweep reconciles rows left pending longer than a paid call can take, not younger ones", async () => {
  // The row is opened at the claim, so a call still in its handler or settling has a row this old.
  const windowMs = service.config.maxTimeoutSeconds * 1000;
  const old = await pendingRow(new Date(Date.now() - windowMs - 15_000), { expired: true });
  const inFlight = await pendingRow(new Date(Date.now() - windowMs + 5_000), { expired: true });
  const young = await pendingRow();
  const swept = await service.paywall()?.sweepPending();
  assert.ok((swept ?? 0) >= 1);
  await service.worker.drain();
  assert.equal((await service.store.ledger.get(old.id))?.state, "failed");
  assert.equal((await service.store.ledger.get(inFlight.id))?.state, "pending");
  assert.equal((await service.store.ledger.get(young.id))?.state, "pending");
});
