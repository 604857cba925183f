// The nightly review of failure reasons the catalogue did not know: each is diagnosed again with the current
// catalogue; those it now knows are marked resolved, the rest are logged for a person to add.
import type { HandlerContext, Warmer } from "../../../catalog/product.ts";
import { markReviewed, unreviewedReasons } from "../repository.ts";
import { diagnose } from "./diagnose.ts";

export const REVIEW_WARMER = "doctor.unknown-reasons";

export const unknownReasonReview: Warmer = {
  name: REVIEW_WARMER,
  everyMs: 24 * 3600_000,
  async run(ctx: HandlerContext) {
    const pending = await unreviewedReasons(ctx.store);
    let resolved = 0;
    const stillUnknown: Array<{ reason: string; seen: number }> = [];
    for (const row of pending) {
      const again = await diagnose({ response: row.sample_response });
      const code =
        again.verdict === "diagnosed" && again.reason.matchedBy !== "evidence" ? again.cause : null;
      await markReviewed(ctx.store, row.reason, code);
      if (code) resolved++;
      else stillUnknown.push({ reason: row.reason, seen: row.seen_count });
    }
    if (stillUnknown.length > 0) {
      ctx.log.warn(
        { unknownReasons: stillUnknown.slice(0, 20) },
        "doctor: failure reasons the catalogue does not know",
      );
    }
    return { reviewed: pending.length, resolved, stillUnknown: stillUnknown.length };
  },
};
