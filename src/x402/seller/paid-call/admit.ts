// admit: a bound on the paid calls this node holds at once (PAID_CALLS_MAX_IN_FLIGHT). A call holds its payment,
// its verify and settle round trips and its answer in memory from here until it ends; past the bound a paid
// request is refused before verify with 503 and Retry-After, nothing claimed or charged, so the buyer can send
// the same PAYMENT-SIGNATURE again. The bound is per node: N nodes take N times as many.
import type { PaidCall, Seller } from "./call.ts";
import { errorRefusal, type RefusalOutcome } from "./outcome.ts";

/** What a refused buyer is told to wait: a paid call takes about verify + handler + settle, a second or two. */
const BUSY_RETRY_AFTER_SEC = 1;

export function admit(seller: Seller, call: PaidCall): RefusalOutcome | undefined {
  if (!seller.slots.take()) {
    seller.events()?.paidCallRefused(call.request.product.sku);
    return errorRefusal(
      "payments_busy",
      undefined,
      { retryAfterSec: BUSY_RETRY_AFTER_SEC },
      { "retry-after": String(BUSY_RETRY_AFTER_SEC) },
    );
  }
  call.holdsSlot = true;
  return undefined;
}

/** In the call's `finally`: the slot goes back however the call ended. */
export function releaseSlot(seller: Seller, call: PaidCall): void {
  if (!call.holdsSlot) return;
  call.holdsSlot = false;
  seller.slots.release();
}
