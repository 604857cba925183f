// What the HTTP app is built from: the products, the paywall once payments are ready, and the service's parts.
import type { Hono } from "hono";
import type { RateLimiter } from "../abuse/rate-limiter.ts";
import type { ServiceContext } from "../catalog/family-context.ts";
import type { AnyProduct, Family } from "../catalog/product.ts";
import type { Observability } from "../observability/index.ts";
import type { PaidCallsNow } from "../observability/metrics.ts";
import type { Paywall } from "../x402/seller/paywall.ts";

export interface AppDeps {
  ctx: ServiceContext;
  products: AnyProduct[];
  /** Set once the resource server has synced with the facilitator; paid routes answer 503 until then. */
  paywall: () => Paywall | undefined;
  /** The embedded local facilitator's routes, mounted at /local-facilitator when it is in use. */
  localFacilitator?: Hono;
  /** True from the moment a shutdown starts: /ready answers 503 so that load balancers stop sending. */
  draining: () => boolean;
  /** Families that declared themselves unavailable in this configuration (see `Family.unavailable`). */
  disabledFamilies?: Family[];
  /** Every served family (the operator view reads their warmers' periods). */
  families?: Family[];
  /** Request ids, the request log and, when someone can scrape them, metrics. */
  observability?: Observability;
  /** Per-client limits on unpaid requests, cluster-wide. */
  rateLimits?: RateLimiter;
  /** This node's paid calls in flight against PAID_CALLS_MAX_IN_FLIGHT; undefined until payments are ready. */
  paidCallsNow?: () => PaidCallsNow | undefined;
}
