// What the paywall reports as payments go through (src/x402/paywall.ts calls these; the daily counts and
// metrics.ts count them).
import type { DailyCounterRepository } from "../store/daily-counters.ts";
export interface PaywallEvents {
  /** The facilitator threw instead of answering (unreachable, timed out, malformed answer). */
  facilitatorError(step: "verify" | "settle"): void;
  /**
   * One settlement attempt ended after `ms`: `failure` is undefined when it settled, the facilitator's reason
   * when it failed, "unknown" when the facilitator left the outcome to the chain.
   */
  settleEnded(sku: string, network: string, ms: number, failure?: string): void;
}

/**
 * The events the service listens to: a settled call is counted for the operator view (daily, in the store)
 * and, when someone scrapes them, every event goes to the metrics.
 */
export function paywallEvents(
  dailyCounts: Pick<DailyCounterRepository, "count">,
  metrics: PaywallEvents | undefined,
): PaywallEvents {
  return {
    facilitatorError(step) {
      metrics?.facilitatorError(step);
    },
    settleEnded(sku, network, ms, failure) {
      if (failure === undefined) dailyCounts.count(sku, "paid");
      metrics?.settleEnded(sku, network, ms, failure);
    },
  };
}
