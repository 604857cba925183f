// A paid call, stage by stage: nothing of the answer leaves unless settlement succeeds. Verify comes before the
// claim (a payment that does not verify writes nothing), the claim before the handler (a payment runs one
// handler at a time), and only a 200 is settled.
import { errorText } from "../../../json.ts";
import { decode, match, precheck, readPaymentId } from "./accept.ts";
import { admit, releaseSlot } from "./admit.ts";
import { PaidCall, type PaidRequest, type Seller, type Stage } from "./call.ts";
import { claim } from "./claim.ts";
import type { PaidOutcome } from "./outcome.ts";
import { reservePaymentId } from "./payment-id.ts";
import { recordAndRespond } from "./record.ts";
import { bill, run } from "./run.ts";
import { settle } from "./settle.ts";
import { storeFailureAnswer, storeReady } from "./store-ready.ts";
import { cancelVerified, verify } from "./verify.ts";

/**
 * The stages in order; the first that answers ends the call. `admit` comes after the checks that cost no
 * facilitator call (a payment that cannot verify gets its 402, not a busy 503) and before verify.
 */
const STAGES: readonly Stage[] = [
  decode,
  match,
  readPaymentId,
  precheck,
  storeReady,
  admit,
  verify,
  claim,
  reservePaymentId,
  run,
  bill,
  settle,
];

export async function charge(seller: Seller, request: PaidRequest): Promise<PaidOutcome> {
  const call = new PaidCall(request);
  try {
    for (const stage of STAGES) {
      const answer = await stage(seller, call);
      if (answer) return answer;
    }
    return await recordAndRespond(seller, call);
  } catch (error) {
    // The store went away before any settlement (the claim, the handler's reads): a 503, nothing charged.
    const answer = storeFailureAnswer(error, call);
    if (answer) return answer;
    throw error;
  } finally {
    await letGo(seller, call);
  }
}

/**
 * On every exit, a thrown error's included: a claim held before any settlement was attempted is released (the
 * payment may be used again), and so is a payment identifier whose answer was neither kept nor left to the chain;
 * last, the call's slot (admit.ts).
 */
async function letGo(seller: Seller, call: PaidCall): Promise<void> {
  await cancelVerified(seller, call);
  if (call.holdsClaim) {
    const { nonceKey } = call;
    const release = () => seller.store.ledger.release(nonceKey);
    await release().catch((e: unknown) => {
      // The store went away: released once it is back, so the payment is not held until it expires.
      if (seller.store.health.observe(e)) seller.store.health.whenBack(`release claim ${nonceKey}`, release);
      else seller.log.error({ err: errorText(e) }, "could not release a payment claim");
    });
  }
  if (call.reservation) {
    await seller.answers
      .release(call.reservation)
      .catch((e: unknown) => seller.log.error({ err: errorText(e) }, "could not free a payment identifier"));
  }
  releaseSlot(seller, call);
}
