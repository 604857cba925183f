// What the paywall reports as payments go through (the verify and settle stages of src/x402/seller/paid-call/
// call these; the daily counts and metrics.ts count them).
import type { Logger } from "../log.ts";
import type { DailyCounterRepository } from "../store/daily-counters.ts";
export interface PaywallEvents {
  /** The facilitator threw instead of answering (unreachable, timed out, malformed answer). */
  facilitatorError(step: "verify" | "settle"): void;
  /**
   * One settlement attempt ended after `ms`: `failure` is undefined when it settled, the facilitator's reason
   * when it failed, "unknown" when the facilitator left the outcome to the chain.
   */
  settleEnded(sku: string, network: string, ms: number, failure?: string): void;
  /**
   * The facilitator's EXTENSION-RESPONSES after a settlement: for the Bazaar, whether its catalogue listed the
   * route (`status`, and a `reason` or `rejectedReason` when it did not).
   */
  extensionResponses(sku: string, responses: Record<string, unknown>): void;
  /** A paid request refused before verify because this node holds as many paid calls as it takes (admit). */
  paidCallRefused(sku: string): void;
}

interface IndexerVerdict {
  extension: string;
  status: string;
  reason?: string;
}

/** Each extension's verdict as the facilitator states it; statuses that are not a word read "other". */
export function indexerVerdicts(responses: Record<string, unknown>): IndexerVerdict[] {
  return Object.entries(responses).flatMap(([extension, value]) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return [];
    const v = value as Record<string, unknown>;
    const status =
      typeof v.status === "string" && /^[A-Za-z0-9_-]{1,32}$/.test(v.status) ? v.status : "other";
    const reasonValue = v.rejectedReason ?? v.reason ?? v.code;
    const reason = typeof reasonValue === "string" ? reasonValue.slice(0, 200) : undefined;
    return [{ extension, status, ...(reason ? { reason } : {}) }];
  });
}

/** A verdict that lists the route: the Bazaar says so with "success"/"accepted"/"cataloged"-like words. */
function isListed(status: string): boolean {
  return /^(success|succeeded|ok|accepted|listed|cataloged|catalogued|indexed|updated|created)$/i.test(
    status,
  );
}

/**
 * The events the service listens to: a settled call is counted for the operator view (daily, in the store)
 * and, when someone scrapes them, every event goes to the metrics.
 */
export function paywallEvents(
  dailyCounts: Pick<DailyCounterRepository, "count">,
  metrics: PaywallEvents | undefined,
  log?: Pick<Logger, "warn">,
): PaywallEvents {
  return {
    facilitatorError(step) {
      metrics?.facilitatorError(step);
    },
    settleEnded(sku, network, ms, failure) {
      if (failure === undefined) dailyCounts.count(sku, "paid");
      metrics?.settleEnded(sku, network, ms, failure);
    },
    extensionResponses(sku, responses) {
      for (const verdict of indexerVerdicts(responses)) {
        if (verdict.extension !== "bazaar") continue;
        const listed = isListed(verdict.status);
        dailyCounts.count(sku, listed ? "indexed" : "index_refused");
        if (!listed) log?.warn({ sku, ...verdict }, "the facilitator's Bazaar did not list this route");
      }
      metrics?.extensionResponses(sku, responses);
    },
    paidCallRefused(sku) {
      dailyCounts.count(sku, "busy");
      metrics?.paidCallRefused(sku);
    },
  };
}
