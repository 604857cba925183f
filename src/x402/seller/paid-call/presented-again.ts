// A payment this server has already claimed, presented again: a retry (after settlement_unknown, or with a
// payment identifier) gets its answer, any other reuse is refused.
import type { SettleResponse } from "@x402/core/types";
import { sha256 } from "../../../sha256.ts";
import type { PaidAnswerRow } from "../../../store/paid-answers.ts";
import { decodeHeaderJson } from "../../shared/header-codec.ts";
import { BATCH } from "../batch/offer.ts";
import type { PaidCall, Seller } from "./call.ts";
import { type AnswerOutcome, type PaidOutcome, paidAnswer, refusalOf } from "./outcome.ts";
import { answerOf, keepAnswer } from "./payment-id.ts";
import { signedPaymentResponse } from "./receipt.ts";

/** How soon a buyer whose payment is held by a request still running may retry with it. */
const IN_FLIGHT_RETRY_AFTER_SEC = 15;

/**
 * A payment the facilitator (or the precheck) refused: a payment already claimed here (a retry after
 * settlement_unknown, a replay) is answered as one; any other gets the 402 with the reason.
 */
export async function refusedOrPresentedAgain(
  seller: Seller,
  call: PaidCall,
  reason: string,
  message: string,
): Promise<PaidOutcome> {
  // A voucher refused for its cumulative total gets the channel's state as this seller holds it (the spec's
  // corrective 402), so the buyer's client can sign the next one against it. So does one whose total was paid
  // already with nothing left to answer: a client that lost that answer would otherwise sign it again forever.
  const refused =
    call.requirements?.scheme === BATCH
      ? () => seller.challengeFor(call.request, call.payload, reason, message)
      : undefined;
  if (await seller.store.ledger.findByNonceKey(call.nonceKey)) return presentedAgain(seller, call, refused);
  return refused ? refused() : seller.challenge(call.request, reason, message);
}

/**
 * A payment already claimed. Kept under its payment identifier: that answer again. Otherwise the retry of
 * a buyer told settlement_unknown gets the chain's decision, and any other reuse is refused (by `reused` when
 * given, else as already used).
 */
export async function presentedAgain(
  seller: Seller,
  call: PaidCall,
  reused?: () => Promise<PaidOutcome>,
): Promise<PaidOutcome> {
  const { request, nonceKey, paymentId } = call;
  const row = paymentId === undefined ? undefined : await seller.answers.findByPayment(paymentId, nonceKey);
  if (row && (row.state === "stored" || row.request_hash !== request.requestHash)) {
    return answerOf(seller, row, request);
  }
  const again = await seller.uncertain.presentedAgain(nonceKey, request.requestHash, request.run);
  if (again === "expired") {
    return seller.challenge(
      request,
      "payment_expired",
      call.requirements?.scheme === BATCH
        ? "This voucher's call never completed and its hold on the channel has lapsed; nothing was charged. Send the same voucher again: its total is charged once."
        : "This payment was never settled and its authorization has expired; nothing was charged. Sign a new one.",
    );
  }
  if (again === "in-flight") {
    // A replay of a call still running, or the retry of one whose node just stopped: refused as a reuse,
    // but never told to pay again, as the first call may charge it.
    const refused = await seller.challenge(
      request,
      "payment_already_used",
      `This payment is held by a request still running (or one whose node just stopped). It is never charged twice: if you did not get that request's answer, retry with the same PAYMENT-SIGNATURE after ${IN_FLIGHT_RETRY_AFTER_SEC} seconds.`,
    );
    return { ...refused, retryAfterSec: IN_FLIGHT_RETRY_AFTER_SEC };
  }
  if (!again) {
    if (reused) return reused();
    return seller.challenge(
      request,
      "payment_already_used",
      "This payment was already used; sign a new one.",
    );
  }
  if (again.status !== 200) return refusalOf(again);
  return deliverConfirmedLate(seller, call, again, row);
}

/** A settlement the chain confirmed late: the answer gets its receipt, and is kept for the payment id. */
async function deliverConfirmedLate(
  seller: Seller,
  call: PaidCall,
  confirmed: Response,
  row: PaidAnswerRow | undefined,
): Promise<AnswerOutcome> {
  const body = await confirmed.text();
  const settlement = decodeHeaderJson<SettleResponse>(confirmed.headers.get("payment-response") ?? "");
  const paid = await signedPaymentResponse(
    seller,
    settlement,
    call.request,
    sha256(body),
    settlement.payer ?? null,
  );
  const answer = { body, paymentResponse: paid.header };
  if (row)
    await keepAnswer(seller, { paymentId: row.payment_id, payer: row.payer }, row.request_hash, answer);
  return paidAnswer(answer, undefined, paid.settlement);
}
