// run: the product's handler makes the answer, in time to settle it before the payment's authorization ends;
// bill: what the answer is and what it costs. Only a 2xx answer goes on to be settled.

import type { PaymentPayload } from "@x402/core/types";
import type { Outcome } from "../../../catalog/product.ts";
import { type Config, SETTLEMENT_MARGIN_MS } from "../../../config.ts";
import { errorText } from "../../../json.ts";
import { sha256 } from "../../../sha256.ts";
import { permit2AuthorizationOf, UPTO } from "../../shared/upto-payload.ts";
import { batchRefundAmount } from "../batch/refund-request.ts";
import { payerOf } from "../payment-identity.ts";
import { uptoSettlementAmount } from "../upto-offer.ts";
import type { PaidCall, Seller } from "./call.ts";
import { errorRefusal, handlerOutcome, type RefusalOutcome } from "./outcome.ts";
import { storeFailureAnswer } from "./store-ready.ts";

/** When the handler's answer must be ready: its budget, and in time to settle before validBefore. */
function handlerDeadline(config: Config, payload: PaymentPayload, now = Date.now()): number {
  const validBefore =
    (payload.payload as { authorization?: { validBefore?: unknown } } | undefined)?.authorization
      ?.validBefore ?? permit2AuthorizationOf(payload.payload)?.deadline;
  const budget = now + config.handlerBudgetMs;
  if (typeof validBefore !== "string" || !/^\d+$/.test(validBefore)) return budget;
  return Math.min(budget, Number(validBefore) * 1000 - config.facilitatorTimeoutMs - SETTLEMENT_MARGIN_MS);
}

class HandlerTimeout extends Error {}

async function runWithin<T>(deadline: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeout()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

export async function run(seller: Seller, call: PaidCall): Promise<RefusalOutcome | undefined> {
  const { request, payload, requirements } = call;
  if (call.skipHandler) {
    // The scheme answers in the handler's place (a batch-settlement refund request): nothing of the product.
    call.outcome = { status: 200, body: call.skipHandler.body ?? {} };
    call.refund = await batchRefundAmount(seller.store, payload);
    return undefined;
  }
  let outcome: Outcome<unknown>;
  let deadline = handlerDeadline(seller.config, payload);
  if (requirements.network.startsWith("solana:"))
    deadline = await (await import("../solana-expiry.ts")).solanaDeadline(seller.config, payload, deadline);
  if (deadline <= Date.now()) return handlerFailed(seller, call, new HandlerTimeout());
  try {
    outcome = await runWithin(deadline, () =>
      request.run({ payer: payerOf(payload), network: requirements.network, scheme: requirements.scheme }),
    );
  } catch (error) {
    return handlerFailed(seller, call, error);
  }
  // Any answer but a 200 is given as it is, and nothing is settled.
  if (outcome.status !== 200) return handlerOutcome(outcome) as RefusalOutcome;
  call.outcome = outcome;
  return undefined;
}

/** A handler too slow to settle in time (504), or one that threw (500): nothing charged either way. */
function handlerFailed(seller: Seller, call: PaidCall, error: unknown): RefusalOutcome {
  const sku = call.request.product.sku;
  if (error instanceof HandlerTimeout) {
    seller.log.warn({ sku }, "handler too slow to settle in time");
    return errorRefusal("answer_too_slow");
  }
  const storeDown = storeFailureAnswer(error);
  if (storeDown) return storeDown;
  seller.log.error({ sku, err: errorText(error) }, "handler threw");
  return errorRefusal("internal_error");
}

export function bill(_seller: Seller, call: PaidCall): undefined {
  const { outcome, requirements } = call;
  // Hashed once: the ledger row and the receipt bind the same digest of the bytes delivered.
  call.text = JSON.stringify(outcome.body);
  call.responseSha256 = sha256(call.text);
  // upto settles what the answer used (at most the authorized maximum); exact the price asked.
  call.amount =
    requirements.scheme === UPTO
      ? uptoSettlementAmount(requirements, outcome.used)
      : call.skipHandler
        ? "0"
        : requirements.amount;
  return undefined;
}
