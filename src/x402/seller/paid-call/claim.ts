// claim: the payment's nonce, taken in the store with its pending ledger row. If this process stops anywhere
// before the outcome is written, the worker finds the row and asks the chain, so no settlement is ever missing
// from the ledger.
import type { PaymentPayload } from "@x402/core/types";
import { batchVoucherOf } from "../batch/offer.ts";
import { payerOf } from "../payment-identity.ts";
import type { PaidCall, Seller } from "./call.ts";
import type { PaidOutcome } from "./outcome.ts";
import { presentedAgain } from "./presented-again.ts";
import { cancelVerified } from "./verify.ts";

/**
 * What the ledger row keeps of a payment while its outcome is open: what the chain check reads (the signed
 * authorization or transaction, and what it paid for), not the 12 KB of extensions the payload echoes.
 */
function chainEvidence(payload: PaymentPayload): PaymentPayload {
  return { x402Version: payload.x402Version, accepted: payload.accepted, payload: payload.payload };
}

/** A voucher call's sale names its channel and the cumulative total its voucher signed. */
function batchSale(payload: PaymentPayload): { batchChannel?: string; batchCumulative?: string } {
  const voucher = batchVoucherOf(payload);
  return voucher ? { batchChannel: voucher.channelId, batchCumulative: voucher.maxClaimableAmount } : {};
}

export async function claim(seller: Seller, call: PaidCall): Promise<PaidOutcome | undefined> {
  const { request, payload, requirements, nonceKey } = call;
  call.entry = {
    sku: request.product.sku,
    requestHash: request.requestHash,
    network: requirements.network,
    // A Solana payment names its payer only inside the transaction: the facilitator's verify read it out.
    payer: payerOf(payload) ?? call.verifiedPayer ?? null,
    amount: requirements.amount,
    asset: requirements.asset,
    payTo: requirements.payTo,
    responseSha256: "",
    transaction: null,
    state: "pending",
    paymentPayload: chainEvidence(payload),
    requirements,
    nonceKey,
    ...batchSale(payload),
  };
  const ledgerId = await seller.store.ledger.claim(call.entry);
  if (ledgerId === undefined) {
    // Claimed already (a retry): this call's own reservation goes first, or the call it retries (a voucher whose
    // node died) would be judged still in flight on the strength of the retry's own hold on the channel.
    await cancelVerified(seller, call);
    return presentedAgain(seller, call);
  }
  call.ledgerId = ledgerId;
  call.holdsClaim = true;
  return undefined;
}
