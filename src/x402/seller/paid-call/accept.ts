// The cheap stages, before any store write or facilitator call: a payment that cannot verify costs no more than
// a 402.
import type { PaymentPayload } from "@x402/core/types";
import { ERRORS } from "../../../errors.ts";
import { decodePaymentSignature } from "../../shared/header-codec.ts";
import { paymentNonceKey } from "../payment-identity.ts";
import { OUT_OF_TIME, paymentPrecheck } from "../payment-precheck.ts";
import { pricingOf } from "../pricing.ts";
import { PAYMENT_ID_PARAMETER, paymentIdOf } from "../retries/paid-answers.ts";
import type { PaidCall, Seller } from "./call.ts";
import { errorRefusal, type PaidOutcome, type RefusalOutcome } from "./outcome.ts";
import { refusedOrPresentedAgain } from "./presented-again.ts";

/** decode: the PAYMENT-SIGNATURE as x402 JSON (a payment given as a value is taken as it is). */
export function decode(seller: Seller, call: PaidCall): Promise<PaidOutcome> | undefined {
  const { payment } = call.request;
  try {
    call.payload =
      "header" in payment ? decodePaymentSignature(payment.header) : (payment.payload as PaymentPayload);
    return undefined;
  } catch {
    return seller.challenge(call.request, "invalid_payment_header", ERRORS.invalid_payment_header.message);
  }
}

/** match: the entry of this price's accepts that the payment pays. */
export async function match(seller: Seller, call: PaidCall): Promise<PaidOutcome | undefined> {
  const { request, payload } = call;
  const accepts = await seller.requirements(request.priceUsd, pricingOf(request.product));
  const requirements = payload?.accepted
    ? seller.server.findMatchingRequirements(accepts, payload)
    : undefined;
  if (!requirements) {
    return seller.challenge(request, "no_matching_requirements", ERRORS.no_matching_requirements.message);
  }
  call.requirements = requirements;
  return undefined;
}

/** readPaymentId: the payment identifier a buyer may name for safe retries; a malformed one is a 400. */
export function readPaymentId(_seller: Seller, call: PaidCall): RefusalOutcome | undefined {
  const paymentId = paymentIdOf(call.payload);
  if (paymentId.invalid !== undefined) {
    return errorRefusal("invalid_parameter", `${PAYMENT_ID_PARAMETER}: ${paymentId.invalid}`, {
      parameter: PAYMENT_ID_PARAMETER,
    });
  }
  call.paymentId = paymentId.id;
  return undefined;
}

/** precheck: shape, recipient, amount and time window, as the facilitator would check them. */
export function precheck(seller: Seller, call: PaidCall): Promise<PaidOutcome> | undefined {
  call.nonceKey = paymentNonceKey(call.payload);
  const problem = paymentPrecheck(call.payload, call.requirements);
  if (!problem) return undefined;
  const message = `The payment cannot be accepted: ${problem}.`;
  // Out of its time window, it may be a payment already used here: answered as one.
  if (problem === OUT_OF_TIME) return refusedOrPresentedAgain(seller, call, "invalid_payment", message);
  return seller.challenge(call.request, "invalid_payment", message);
}
