// What the paywall reports as payments go through (src/x402/paywall.ts calls these; metrics.ts counts them).
export interface PaywallEvents {
  /** The facilitator threw instead of answering (unreachable, timed out, malformed answer). */
  facilitatorError(step: "verify" | "settle"): void;
  /**
   * One settlement attempt ended after `ms`: `failure` is undefined when it settled, the facilitator's reason
   * when it failed, "unknown" when the facilitator left the outcome to the chain.
   */
  settleEnded(sku: string, network: string, ms: number, failure?: string): void;
}
