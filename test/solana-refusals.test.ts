// Each refusal of the local facilitator's exact-SVM settlement, with a tampered transaction: verify and settle
// both say no with the reason, and no pretend USDC moves.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Store } from "../src/store/store.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { BLOCKHASH_VALID_BLOCKS, blockHeightAt, blockhashOf } from "../src/x402/facilitator/solana-blocks.ts";
import { registerLocalSolana } from "../src/x402/facilitator/solana-facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { paymentTransaction, systemTransfer, withBadBuyerSignature } from "./solana-tx.ts";
import { openTestStore } from "./test-store.ts";

const SOLANA = NETWORKS.solana;
const MINT = SOLANA.usdc.address;
let store: Store;
let feePayer: KeyPairSigner;
let payTo: string;

function newFacilitator(): x402Facilitator {
  const facilitator = new x402Facilitator();
  registerLocalSolana(facilitator, store, [SOLANA], { feePayer });
  return facilitator;
}

before(async () => {
  store = await openTestStore();
  feePayer = await generateKeyPairSigner();
  payTo = (await generateKeyPairSigner()).address;
});
after(() => store.close());

function requirements(): PaymentRequirements {
  return {
    scheme: "exact",
    network: SOLANA.caip2,
    asset: MINT,
    amount: "5000",
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: feePayer.address },
  };
}

function payload(transaction: string): PaymentPayload {
  return { x402Version: 2, accepted: requirements(), payload: { transaction } };
}

async function fundedBuyer(): Promise<KeyPairSigner> {
  const buyer = await generateKeyPairSigner();
  await creditWallet(store, SOLANA, buyer.address, "1");
  return buyer;
}

const currentBlockhash = () => blockhashOf(SOLANA.caip2, blockHeightAt(Date.now()));

async function balances(buyer: KeyPairSigner): Promise<[bigint, bigint]> {
  return [
    await store.localUsdc.balance(SOLANA.caip2, buyer.address),
    await store.localUsdc.balance(SOLANA.caip2, payTo),
  ];
}

/** Verify and settle both refuse with the reason; the balances stay as they were. */
async function refused(
  facilitator: x402Facilitator,
  buyer: KeyPairSigner,
  transaction: string,
  reason: string,
  message?: RegExp,
): Promise<void> {
  const before = await balances(buyer);
  const verified = await facilitator.verify(payload(transaction), requirements());
  assert.equal(verified.isValid, false);
  assert.equal(verified.invalidReason, reason);
  if (message) assert.match(verified.invalidMessage ?? "", message);
  const settled = await facilitator.settle(payload(transaction), requirements());
  assert.equal(settled.success, false);
  assert.equal(settled.errorReason, reason);
  assert.deepEqual(await balances(buyer), before);
}

const valid = async (
  buyer: KeyPairSigner,
  overrides: Partial<Parameters<typeof paymentTransaction>[0]> = {},
) =>
  paymentTransaction({
    buyer,
    feePayer: feePayer.address,
    mint: MINT,
    payTo,
    amount: 5000n,
    blockhash: currentBlockhash(),
    ...overrides,
  });

test("an untampered transaction verifies and settles, moving exactly the amount", async () => {
  const facilitator = newFacilitator();
  const buyer = await fundedBuyer();
  const tx = await valid(buyer);
  const verified = await facilitator.verify(payload(tx), requirements());
  assert.equal(verified.isValid, true, verified.invalidMessage ?? verified.invalidReason);
  assert.equal(verified.payer, buyer.address);
  const settled = await facilitator.settle(payload(tx), requirements());
  assert.equal(settled.success, true, settled.errorMessage ?? settled.errorReason);
  assert.equal(await store.localUsdc.transferStatus(settled.transaction), "success");
  assert.deepEqual(await balances(buyer), [995_000n, 5000n]);
});

test("wrong amount: refused as an amount mismatch", async () => {
  const buyer = await fundedBuyer();
  await refused(
    newFacilitator(),
    buyer,
    await valid(buyer, { amount: 4999n }),
    "invalid_exact_svm_payload_amount_mismatch",
  );
});

test("wrong destination: refused as a recipient mismatch", async () => {
  const buyer = await fundedBuyer();
  const elsewhere = (await generateKeyPairSigner()).address;
  await refused(
    newFacilitator(),
    buyer,
    await valid(buyer, { payTo: elsewhere }),
    "invalid_exact_svm_payload_recipient_mismatch",
  );
});

test("an extra instruction (a lamport transfer after the memo): refused as an unknown fifth instruction", async () => {
  const buyer = await fundedBuyer();
  const tx = await valid(buyer, { extra: [systemTransfer(buyer, payTo)] });
  await refused(newFacilitator(), buyer, tx, "invalid_exact_svm_payload_unknown_fifth_instruction");
});

test("a bad buyer signature: refused as an invalid signature", async () => {
  const buyer = await fundedBuyer();
  const tx = withBadBuyerSignature(await valid(buyer));
  await refused(newFacilitator(), buyer, tx, "invalid_exact_svm_payload_signature_invalid");
});

test("an expired blockhash and one the chain never issued: refused by the chain's simulation, with the reason", async () => {
  const buyer = await fundedBuyer();
  const old = blockhashOf(SOLANA.caip2, blockHeightAt(Date.now()) - BLOCKHASH_VALID_BLOCKS - 5);
  const simulationFailed = "invalid_exact_svm_transaction_simulation_failed";
  await refused(newFacilitator(), buyer, await valid(buyer, { blockhash: old }), simulationFailed, /expired/);
  const forged = (await generateKeyPairSigner()).address; // any 32 bytes in base58
  await refused(
    newFacilitator(),
    buyer,
    await valid(buyer, { blockhash: forged }),
    simulationFailed,
    /Blockhash not found/,
  );
  const future = blockhashOf(SOLANA.caip2, blockHeightAt(Date.now()) + 1000);
  await refused(
    newFacilitator(),
    buyer,
    await valid(buyer, { blockhash: future }),
    simulationFailed,
    /Blockhash not found/,
  );
});

test("decimals other than the mint's, and more than the buyer holds: refused by the chain with the reason", async () => {
  const buyer = await fundedBuyer();
  const simulationFailed = "invalid_exact_svm_transaction_simulation_failed";
  await refused(newFacilitator(), buyer, await valid(buyer, { decimals: 9 }), simulationFailed, /decimals/);
  const poor = await generateKeyPairSigner();
  await creditWallet(store, SOLANA, poor.address, "0.004999");
  await refused(newFacilitator(), poor, await valid(poor), simulationFailed, /insufficient funds/);
});

test("a settled transaction presented again is refused, on the same facilitator and on another sharing the store", async () => {
  const buyer = await fundedBuyer();
  const tx = await valid(buyer);
  const first = newFacilitator();
  const settled = await first.settle(payload(tx), requirements());
  assert.equal(settled.success, true);
  const after = await balances(buyer);
  const again = await first.settle(payload(tx), requirements());
  assert.equal(again.success, false);
  assert.equal(again.errorReason, "duplicate_settlement");
  // Another node: no in-memory cache of the first settlement, only the ledger.
  await refused(
    newFacilitator(),
    buyer,
    tx,
    "invalid_exact_svm_transaction_simulation_failed",
    /already been processed/,
  );
  assert.deepEqual(await balances(buyer), after);
});
