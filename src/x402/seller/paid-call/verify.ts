// verify: the facilitator's word on the payment, before anything is written. Verify moves no money, so a process
// that stops before the claim leaves nothing to decide.

import { VerifyError } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import { NoFacilitatorError } from "../facilitators/set.ts";
import type { PaidCall, Seller } from "./call.ts";
import { errorRefusal, type PaidOutcome } from "./outcome.ts";
import { refusedOrPresentedAgain } from "./presented-again.ts";

const REFUSED = "The facilitator refused the payment.";

export async function verify(seller: Seller, call: PaidCall): Promise<PaidOutcome | undefined> {
  try {
    const verified = await seller.server.verifyPayment(
      call.payload,
      call.requirements,
      call.request.extensions,
    );
    call.verifiedPayer = verified.payer;
    if (!verified.isValid) {
      return refusedOrPresentedAgain(
        seller,
        call,
        verified.invalidReason ?? "invalid_payment",
        verified.invalidMessage ?? REFUSED,
      );
    }
    call.verified = true;
    call.skipHandler = verified.skipHandler;
    return undefined;
  } catch (error) {
    if (error instanceof VerifyError) {
      return refusedOrPresentedAgain(
        seller,
        call,
        error.invalidReason ?? "invalid_payment",
        error.invalidMessage ?? REFUSED,
      );
    }
    if (error instanceof NoFacilitatorError) {
      return errorRefusal(
        "facilitators_down",
        undefined,
        {},
        { "retry-after": String(error.retryAfterSeconds) },
      );
    }
    seller.events()?.facilitatorError("verify");
    seller.log.warn({ sku: call.request.product.sku, err: errorText(error) }, "facilitator verify failed");
    return errorRefusal("facilitator_unavailable");
  }
}

/**
 * A verified payment whose call ends before settlement is asked: its scheme is told, so what it reserved is
 * freed (a batch-settlement voucher's hold on its channel: the buyer's next voucher is taken at the old total).
 */
export async function cancelVerified(seller: Seller, call: PaidCall): Promise<void> {
  if (!call.verified) return;
  call.verified = false;
  const { payload, requirements, request } = call;
  await seller.server
    .createPaymentCancellationDispatcher(payload, requirements, request.extensions)
    .cancel({ reason: "handler_failed" })
    .catch((e: unknown) => seller.log.error({ err: errorText(e) }, "could not cancel a verified payment"));
}
