// Safe retries: the payment identifier a buyer names is reserved for its request, and its answer kept, so a
// retry with it gets that answer again and is never settled twice.

import { errorText } from "../../../json.ts";
import type { PaidAnswerRow } from "../../../store/paid-answers.ts";
import { payerOf } from "../payment-identity.ts";
import { type AnswerKey, IN_PROGRESS_RETRY_AFTER_SEC, type PaidAnswer } from "../retries/paid-answers.ts";
import type { PaidCall, PaidRequest, Seller } from "./call.ts";
import {
  type AnswerOutcome,
  errorRefusal,
  type PaidOutcome,
  paidAnswer,
  type RefusalOutcome,
} from "./outcome.ts";

/** reservePaymentId: a payment identifier already answered gives its answer again; this payment is never settled. */
export async function reservePaymentId(seller: Seller, call: PaidCall): Promise<PaidOutcome | undefined> {
  const payer = payerOf(call.payload) ?? call.verifiedPayer;
  if (call.paymentId === undefined || !payer) return undefined;
  const key = { paymentId: call.paymentId, payer };
  const taken = await takePaymentId(seller, key, call.request.requestHash, call.nonceKey);
  if (taken !== true) return taken;
  call.reservation = key;
  return undefined;
}

/**
 * Takes a payment identifier for this request: true, or the answer to give instead (the kept answer of the
 * same request, or 409 for another request or one still running).
 */
async function takePaymentId(
  seller: Seller,
  key: AnswerKey,
  requestHash: string,
  nonceKey: string,
): Promise<true | PaidOutcome> {
  const { answers } = seller;
  if (await answers.reserve(key, requestHash, nonceKey)) return true;
  const row = await answers.find(key);
  if (row && (await abandoned(seller, row))) {
    await answers.release(key);
    if (await answers.reserve(key, requestHash, nonceKey)) return true;
  }
  // Gone between the two queries (expired or freed): the next request with it starts afresh.
  if (!row) return conflict({ request_hash: requestHash }, requestHash);
  return answerOf(seller, row, { requestHash });
}

/**
 * A reservation whose payment will never deliver: the chain showed it expired unspent, or its request
 * stopped before any settlement was attempted (no ledger row, and its authorization window is over).
 */
async function abandoned(seller: Seller, row: PaidAnswerRow): Promise<boolean> {
  if (row.state !== "pending") return false;
  const ledger = await seller.store.ledger.findByNonceKey(row.nonce_key);
  if (ledger) return ledger.state === "failed";
  return Date.now() - Date.parse(row.created_at) > seller.config.maxTimeoutSeconds * 1000;
}

/** What a kept payment identifier answers: its answer to the same request, else 409. */
export function answerOf(
  seller: Seller,
  row: PaidAnswerRow,
  request: Pick<PaidRequest, "requestHash">,
): AnswerOutcome | RefusalOutcome {
  if (row.state !== "stored" || row.request_hash !== request.requestHash) {
    return conflict(row, request.requestHash);
  }
  try {
    const answer = seller.answers.open(row);
    seller.log.info({ paymentId: row.payment_id }, "paid answer given again for a retry; nothing settled");
    return paidAnswer(answer);
  } catch (error) {
    seller.log.error(
      { paymentId: row.payment_id, err: errorText(error) },
      "a kept paid answer cannot be opened (another RECEIPT_SIGNING_KEY?)",
    );
    return errorRefusal("answer_unavailable");
  }
}

/** Keeps a delivered answer for retries; a store fault is logged (the buyer has the answer already). */
export async function keepAnswer(
  seller: Seller,
  key: AnswerKey,
  requestHash: string,
  answer: PaidAnswer,
): Promise<void> {
  await seller.answers
    .keep({ payment_id: key.paymentId, payer: key.payer, request_hash: requestHash }, answer)
    .catch((e: unknown) =>
      seller.log.error({ paymentId: key.paymentId, err: errorText(e) }, "could not keep a paid answer"),
    );
}

/** 409 for a payment id the buyer cannot use for this request (the same id with a different payload). */
function conflict(row: Pick<PaidAnswerRow, "request_hash">, requestHash: string): RefusalOutcome {
  if (row.request_hash !== requestHash) return errorRefusal("payment_identifier_conflict");
  return errorRefusal(
    "payment_in_progress",
    undefined,
    { retryAfterSec: IN_PROGRESS_RETRY_AFTER_SEC },
    { "retry-after": String(IN_PROGRESS_RETRY_AFTER_SEC), "cache-control": "no-store" },
  );
}
