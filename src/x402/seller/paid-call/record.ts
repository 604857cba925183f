// record and respond: the settlement's outcome written on the payment's row, and the buyer's answer. Data leaves
// only with a settled payment.

import type { Settlement } from "../../../catalog/product.ts";
import { errorText } from "../../../json.ts";
import type { ResolveOptions } from "../../../store/ledger.ts";
import type { LedgerState } from "../../../store/schema.ts";
import { recordBuyerRefund } from "../batch/refund-request.ts";
import type { PaidCall, Seller } from "./call.ts";
import {
  type AnswerOutcome,
  errorRefusal,
  type PaidOutcome,
  paidAnswer,
  type RefusalOutcome,
  type SettlementFailedOutcome,
} from "./outcome.ts";
import { keepAnswer } from "./payment-id.ts";
import { shownToBuyer, signedPaymentResponse } from "./receipt.ts";

/** How soon a buyer told `settlement_unknown` may retry with the same payment. */
const UNKNOWN_RETRY_AFTER_SEC = 15;

export function recordAndRespond(seller: Seller, call: PaidCall): Promise<PaidOutcome> {
  if (call.undecided !== undefined) return leaveToTheChain(seller, call, call.undecided);
  if (!call.settlement.success) return refuseUnsettled(seller, call);
  return deliver(seller, call);
}

/**
 * Undecided: never settled again. The chain decides, and the buyer's retry with this payment gets the answer
 * (held in the row) once it shows the payment. The claim stays, so the payment cannot be used elsewhere; so does
 * the payment identifier's reservation, whose answer is kept once that retry delivers it.
 */
async function leaveToTheChain(seller: Seller, call: PaidCall, undecided: string): Promise<RefusalOutcome> {
  const { settlement } = call;
  call.reservation = undefined;
  const id = await record(
    seller,
    call,
    "unknown",
    settlement.transaction || null,
    `settlement outcome unknown: ${undecided}`.slice(0, 500),
    settlement.payer,
    { heldResponse: call.text },
  );
  await seller.uncertain.queue(id);
  seller.log.error(
    { sku: call.request.product.sku, ledgerId: id, err: undecided },
    "settlement outcome unknown; the chain will decide",
  );
  return errorRefusal(
    "settlement_unknown",
    undefined,
    { charged: "unknown", retryAfterSec: UNKNOWN_RETRY_AFTER_SEC, reference: `ledger-${id}` },
    { "retry-after": String(UNKNOWN_RETRY_AFTER_SEC), "cache-control": "no-store" },
  );
}

/** The facilitator refused the settlement: no data, and nothing charged. */
async function refuseUnsettled(seller: Seller, call: PaidCall): Promise<SettlementFailedOutcome> {
  const { settlement, request } = call;
  const reason = settlement.errorReason ?? "settlement_failed";
  const id = await record(seller, call, "failed", settlement.transaction || null, reason, settlement.payer);
  // A voucher not charged leaves its total free: the buyer's next voucher signs the same one.
  if (call.entry.batchChannel) await seller.store.ledger.voidNonce(id, call.nonceKey).catch(() => {});
  return {
    kind: "settlement-failed",
    settlement: shownToBuyer(settlement),
    body: {
      x402Version: 2,
      error: reason,
      message: "The payment could not be settled; no data was delivered.",
      charged: false,
    },
    ...(await newPaymentChallenge(seller, request)),
  };
}

/** The 402 a new payment answers; without it (the offer cannot be built now) the failure stands alone. */
async function newPaymentChallenge(
  seller: Seller,
  request: PaidCall["request"],
): Promise<Pick<SettlementFailedOutcome, "challenge">> {
  try {
    return { challenge: (await seller.challenge(request, "payment_required")).challenge };
  } catch (error) {
    seller.log.warn({ sku: request.product.sku, err: errorText(error) }, "no 402 after a failed settlement");
    return {};
  }
}

/** Settled: the answer, with its receipt, kept for retries under the payment identifier. */
async function deliver(seller: Seller, call: PaidCall): Promise<AnswerOutcome> {
  const { settlement, request } = call;
  const payer = settlement.payer ?? call.entry.payer;
  // PAYMENT-RESPONSE states the amount settled (the upto spec's SettlementResponse field; exact's price).
  const amount = settlement.amount || call.amount;
  settlement.amount = amount;
  // The buyer has paid: a store fault from here on is logged, never turned into a lost answer.
  const paid = await signedPaymentResponse(
    seller,
    settlement,
    request,
    call.responseSha256,
    payer,
    call.outcome.used?.counts,
  );
  // A voucher moves nothing on chain: its row has no transaction (its claim does, later).
  await record(seller, call, "settled", settlement.transaction || null, null, payer ?? undefined, {
    delivered: true,
  });
  if (call.refund) {
    const { network } = call.requirements;
    await recordBuyerRefund(seller.store, seller.log, network, call.refund, settlement.transaction);
  }
  await afterSettlement(seller, call, {
    network: call.requirements.network,
    payer,
    transaction: settlement.transaction,
    amount,
    ...(paid.receipt ? { receipt: paid.receipt } : {}),
  });
  const answer = { body: call.text, paymentResponse: paid.header };
  const reserved = call.reservation;
  if (reserved) {
    call.reservation = undefined;
    await keepAnswer(seller, reserved, request.requestHash, answer);
  }
  return paidAnswer(answer, call.outcome.body, paid.settlement);
}

/** The product's own step once its answer is paid (an upto budget's charge, say); a failure is only logged. */
async function afterSettlement(seller: Seller, call: PaidCall, settled: Settlement): Promise<void> {
  const { onSettled } = call.outcome;
  if (!onSettled) return;
  try {
    await onSettled(settled, { sales: seller.store.sales });
  } catch (error) {
    seller.log.error(
      { sku: call.request.product.sku, err: errorText(error) },
      "after-settlement step failed",
    );
  }
}

/** Sets the outcome on the payment's row; a store fault is logged with everything but the signed payload. */
async function record(
  seller: Seller,
  call: PaidCall,
  state: LedgerState,
  transaction: string | null,
  errorReason: string | null,
  payer?: string,
  options: Pick<ResolveOptions, "delivered" | "heldResponse"> = {},
): Promise<number> {
  const { ledgerId: id, amount, responseSha256 } = call;
  const entry = {
    ...call.entry,
    amount,
    responseSha256,
    state,
    transaction,
    errorReason,
    payer: payer ?? call.entry.payer,
  };
  const write = () =>
    seller.store.ledger.resolve(id, state, transaction, errorReason, {
      payer: entry.payer,
      ...options,
      responseSha256,
      amount,
    });
  try {
    await write();
  } catch (error) {
    const { paymentPayload: _payload, ...loggable } = entry;
    // The store went away after the settlement: the outcome is written once it is back (the row would otherwise
    // be decided by the chain as settled but undelivered, and owed a refund for an answer the buyer has).
    const deferred = seller.store.health.observe(error);
    if (deferred) seller.store.health.whenBack(`ledger ${id}: ${state}`, write);
    seller.log.error(
      { ledgerId: id, ledger: loggable, err: errorText(error) },
      deferred
        ? "LEDGER WRITE DEFERRED: the store is down; this outcome is written once it is back (by hand if this process stops first)"
        : "LEDGER WRITE FAILED: record this settlement outcome by hand",
    );
  }
  return id;
}
