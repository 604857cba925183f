// The local facilitator's upto scheme: the SDK's upto-EVM facilitator over the pretend USDC ledger with pretend
// Permit2 (permit2-ledger.ts). The buyer signs a maximum with the SDK's upto client; settlement moves what the
// resource server asks, never more.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { erc20AllowanceAbi, PERMIT2_ADDRESS } from "@x402/evm";
import { UptoEvmScheme as UptoEvmClient } from "@x402/evm/upto/client";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { openTestStore } from "../../../test/test-store.ts";
import type { Store } from "../../store/store.ts";
import { localSettlementChain } from "../seller/chain/local.ts";
import { NETWORKS } from "../shared/networks.ts";
import { createLocalFacilitator, creditWallet } from "./facilitator.ts";
import { createLedgerSigner, LOCAL_FACILITATOR_ADDRESS } from "./ledger-signer.ts";
import { withPermit2 } from "./permit2-ledger.ts";
import { localFacilitatorRoutes } from "./routes.ts";

const base = NETWORKS.base;

let store: Store;
let facilitator: x402Facilitator;

before(async () => {
  store = await openTestStore();
  facilitator = createLocalFacilitator(store, [base, NETWORKS["base-sepolia"]]);
});
after(() => store.close());

function newAccount(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** The upto requirements a paycall 402 offers: the maximum, Permit2, the facilitator's address. */
function uptoRequirements(payTo: string, amount = "8095"): PaymentRequirements {
  return {
    scheme: "upto",
    network: base.caip2,
    asset: base.usdc.address,
    amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: {
      name: "USD Coin",
      version: "2",
      assetTransferMethod: "permit2",
      facilitatorAddress: LOCAL_FACILITATOR_ADDRESS,
    },
  };
}

async function pay(account: PrivateKeyAccount, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const result = await new UptoEvmClient(account).createPaymentPayload(2, requirements);
  return { x402Version: 2, accepted: requirements, payload: result.payload };
}

const balance = (address: string) => store.localUsdc.balance(base.caip2, address);

test("getSupported lists upto beside exact on each EVM network, with the facilitator's address", () => {
  const kinds = facilitator.getSupported().kinds;
  const upto = kinds.filter((k) => k.scheme === "upto");
  assert.deepEqual(
    upto.map((k) => k.network),
    [base.caip2, NETWORKS["base-sepolia"].caip2],
  );
  assert.deepEqual(upto[0]?.extra, { facilitatorAddress: LOCAL_FACILITATOR_ADDRESS });
});

test("a buyer authorizes the maximum; settlement moves the smaller amount asked, once", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = uptoRequirements(payTo);
  const payload = await pay(buyer, requirements);

  const verified = await facilitator.verify(payload, requirements);
  assert.deepEqual(verified, { isValid: true, invalidReason: undefined, payer: buyer.address });

  const settled = await facilitator.settle(payload, { ...requirements, amount: "5039" });
  assert.equal(settled.success, true, JSON.stringify(settled));
  assert.equal(settled.amount, "5039");
  assert.equal(settled.payer, buyer.address);
  assert.match(settled.transaction, /^0x[0-9a-f]{64}$/);
  assert.equal(await balance(buyer.address), 1_000_000n - 5039n);
  assert.equal(await balance(payTo), 5039n);

  // The Permit2 nonce is spent: the same authorization settles nothing more.
  const again = await facilitator.settle(payload, { ...requirements, amount: "1000" });
  assert.equal(again.success, false);
  assert.equal(await balance(payTo), 5039n);
});

test("settling above the signed maximum is refused and moves nothing", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = uptoRequirements(payTo);
  const payload = await pay(buyer, requirements);
  const settled = await facilitator.settle(payload, { ...requirements, amount: "8096" });
  assert.equal(settled.success, false);
  assert.equal(settled.errorReason, "invalid_upto_evm_payload_settlement_exceeds_amount");
  assert.equal(await balance(payTo), 0n);
});

test("a signature that does not recover to the payer, or names another facilitator, is refused", async () => {
  const buyer = newAccount();
  const payTo = newAccount().address;
  await creditWallet(store, base, buyer.address, "1");
  const requirements = uptoRequirements(payTo);
  const payload = await pay(buyer, requirements);
  const inner = payload.payload as { permit2Authorization: { permitted: { amount: string } } };
  const raised = structuredClone(payload);
  (raised.payload as typeof inner).permit2Authorization.permitted.amount = "9000";
  const refused = await facilitator.verify(raised, { ...requirements, amount: "9000" });
  assert.equal(refused.isValid, false);
  assert.equal(refused.invalidReason, "invalid_permit2_signature");

  const other = uptoRequirements(payTo);
  other.extra = { ...other.extra, facilitatorAddress: `0x${"12".repeat(20)}` };
  const elsewhere = await facilitator.verify(await pay(buyer, other), other);
  assert.equal(elsewhere.isValid, false);
  assert.equal(elsewhere.invalidReason, "upto_facilitator_mismatch");
  assert.equal(await balance(payTo), 0n);
});

test("a buyer whose balance is below the maximum is refused at verify", async () => {
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "0.008");
  const requirements = uptoRequirements(newAccount().address);
  const refused = await facilitator.verify(await pay(buyer, requirements), requirements);
  assert.equal(refused.isValid, false);
  assert.equal(refused.invalidReason, "permit2_insufficient_balance");
});

test("pretend Permit2 allowance: every owner has approved Permit2 for the maximum, no other spender", async () => {
  const signer = withPermit2(createLedgerSigner(store, base), store, base);
  const owner = newAccount().address;
  const read = (spender: string) =>
    signer.readContract({
      address: base.usdc.address as `0x${string}`,
      abi: erc20AllowanceAbi,
      functionName: "allowance",
      args: [owner, spender],
    });
  assert.equal(await read(PERMIT2_ADDRESS), 2n ** 256n - 1n);
  assert.equal(await read(newAccount().address), 0n);
});

test("HTTP: a malformed upto payload is a 400 naming the field", async () => {
  const app = localFacilitatorRoutes(facilitator);
  const requirements = uptoRequirements(newAccount().address);
  const payload = await pay(newAccount(), requirements);
  (payload.payload as { permit2Authorization: { nonce: unknown } }).permit2Authorization.nonce = "0xzz";
  const response = await app.request("/verify", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements }),
  });
  assert.equal(response.status, 400);
  const body = (await response.json()) as { invalidMessage: string };
  assert.match(body.invalidMessage, /permit2Authorization\.nonce/);
});

test("the local chain decides an uncertain upto settlement by its Permit2 nonce", async () => {
  const chain = localSettlementChain(store);
  const buyer = newAccount();
  await creditWallet(store, base, buyer.address, "1");
  const requirements = uptoRequirements(newAccount().address);
  const payload = await pay(buyer, requirements);
  const lookup = { payload, requirements, transaction: null, attemptedAt: new Date() };
  assert.equal((await chain.check(lookup)).state, "open");
  const settled = await facilitator.settle(payload, { ...requirements, amount: "6000" });
  assert.deepEqual(await chain.check(lookup), { state: "spent", transaction: settled.transaction });

  // Never settled, and past its deadline: Permit2 would refuse it now.
  const expired = await pay(buyer, requirements);
  (expired.payload as { permit2Authorization: { deadline: string } }).permit2Authorization.deadline = "1";
  assert.equal((await chain.check({ ...lookup, payload: expired })).state, "expired");
});
