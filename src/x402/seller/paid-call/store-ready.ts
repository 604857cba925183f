// storeReady: a paid call is refused before verify while the store cannot take its writes (its database
// unreachable, its disk full): the payment's claim and ledger row could not be written, so nothing may be
// charged. The store's health (store/health.ts) notes the failure and clears it by itself once the store is back.
import { storeFailure } from "../../../store/health.ts";
import type { PaidCall, Seller } from "./call.ts";
import { errorRefusal, type RefusalOutcome } from "./outcome.ts";

/** How soon a buyer refused for the store may try again: about as long as the store's probe takes to see it back. */
const STORE_RETRY_AFTER_SEC = 5;

export function storeReady(seller: Seller, _call: PaidCall): RefusalOutcome | undefined {
  const down = seller.store.health.down();
  return down ? storeUnavailable(down.reason) : undefined;
}

/** The 503 of a call refused for the store, naming the cause. */
function storeUnavailable(reason: string): RefusalOutcome {
  return errorRefusal(
    "store_unavailable",
    `The service's database is unavailable (${reason}); nothing was charged. Retry after ${STORE_RETRY_AFTER_SEC} seconds.`,
    { reason, retryAfterSec: STORE_RETRY_AFTER_SEC },
    { "retry-after": String(STORE_RETRY_AFTER_SEC), "cache-control": "no-store" },
  );
}

/**
 * The answer to an error a store query threw because the store went away: the 503, when no settlement was
 * attempted yet (so nothing was charged); undefined for any other error, or once the payment may have moved.
 */
export function storeFailureAnswer(error: unknown, call?: PaidCall): RefusalOutcome | undefined {
  if (call?.settlement !== undefined || call?.undecided !== undefined) return undefined;
  const reason = storeFailure(error);
  return reason ? storeUnavailable(reason) : undefined;
}
