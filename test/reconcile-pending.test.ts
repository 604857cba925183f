// A ledger row left pending (the node stopped between writing it and recording the settlement) is decided
// by the chain (here the local facilitator's ledger), never by settling again: spent means settled with the
// answer undelivered (a refund due after a day), unspent and expired means not charged, else ask later.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PaymentPayload } from "@x402/core/types";
import { canonicalRequest } from "../src/catalog/input.ts";
import { sha256 } from "../src/sha256.ts";
import type { LedgerEntry } from "../src/store/ledger.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { paymentNonceKey } from "../src/x402/seller/payment-identity.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import {
  decodeBase64Json,
  newBuyer,
  signedPaymentHeader,
  startTestService,
  type TestService,
} from "./harness.ts";

let service: TestService;
let serviceStartedAt = 0;
const FX = "/v1/macro/ecb/fx?pair=USD";

before(async () => {
  serviceStartedAt = Date.now();
  service = await startTestService();
  await service.worker.runWarmer("ecb.fx");
});
after(() => service.stop());

const signedHeaders = new Map<string, string>();
const signedPaymentHeaderFor = async (buyer: { address: string }) =>
  signedHeaders.get(buyer.address) as string;

async function pendingRow(createdAt = new Date(), options: { expired?: boolean } = {}) {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const header = await signedPaymentHeader(buyer, service.url + FX);
  signedHeaders.set(buyer.address, header);
  const payload = decodeBase64Json(header);
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

/** A row as a process that crashed leaves it: claimed and pending, written before this service started. */
async function crashedPendingRow(options: { expired?: boolean } = {}) {
  const row = await pendingRow(new Date(), options);
  const header = await signedPaymentHeaderFor(row.buyer);
  const nonceKey = paymentNonceKey(decodeBase64Json(header) as unknown as PaymentPayload);
  const writtenAt = new Date(serviceStartedAt - 2000);
  await service.store.db
    .updateTable("ledger")
    .set({
      nonce_key: nonceKey,
      request_hash: sha256(canonicalRequest("GET", "/v1/macro/ecb/fx", { pair: "USD" }, undefined)),
      created_at: writtenAt.toISOString(),
    })
    .where("id", "=", row.id)
    .execute();
  await service.store.nonces.claim(nonceKey, "ecb.fx", writtenAt);
  return { ...row, header };
}

test("a retry of a payment left pending by a crash, settled on chain: delivered at once, never settled again", async () => {
  const { id, buyer, requirements, header } = await crashedPendingRow();
  // The header's own authorization is the one the row keeps: settle it as the crashed node had.
  const settle = await fetch(`${service.url}/local-facilitator/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      x402Version: 2,
      paymentPayload: decodeBase64Json(header),
      paymentRequirements: requirements,
    }),
  });
  assert.equal(((await settle.json()) as { success: boolean }).success, true);
  const paidOnce = await balance(buyer.address);
  const retry = await fetch(service.url + FX, { headers: { "payment-signature": header } });
  assert.equal(
    retry.status,
    200,
    `the chain is asked at once, not after the sweep: ${await retry.clone().text()}`,
  );
  assert.equal(((await retry.json()) as { error?: string }).error, undefined, "the answer, not an error");
  assert.ok(retry.headers.get("payment-response"));
  const row = await service.store.ledger.get(id);
  assert.deepEqual([row?.state, row?.delivered], ["settled", 1]);
  assert.equal(await balance(buyer.address), paidOnce, "never settled twice");
});

test("a retry of a payment left pending by a crash whose authorization ran out unspent: refused at once, not charged", async () => {
  const { id, buyer, header } = await crashedPendingRow({ expired: true });
  const retry = await fetch(service.url + FX, { headers: { "payment-signature": header } });
  assert.equal(retry.status, 402);
  assert.equal(((await retry.json()) as { error: string }).error, "payment_expired");
  assert.equal((await service.store.ledger.get(id))?.state, "failed");
  assert.equal(await balance(buyer.address), 1_000_000n);
});
