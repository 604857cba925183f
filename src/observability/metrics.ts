// Prometheus metrics of one service instance, in a registry of its own (several services may share a process
// in tests). Every label is bounded: route templates, SKUs, networks, upstream and cache-family names, status
// codes and reason codes; never a raw URL, query or payer.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { registerFacilitatorMetrics, type WatchedFacilitators } from "./facilitator-metrics.ts";
import { type HistogramChild, HotCounter, HotHistogram } from "./hot-metrics.ts";
import type { PaywallEvents } from "./paywall-events.ts";
import { indexerVerdicts } from "./paywall-events.ts";
import type { StoreGauges } from "./store-gauges.ts";

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const SLOW_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A reason code from a facilitator or chain as a label: short snake case, anything else "other". */
export function reasonLabel(reason: string): string {
  return /^[A-Za-z0-9_]{1,64}$/.test(reason) ? reason : "other";
}

/** This node's paid calls now (PAID_CALLS_MAX_IN_FLIGHT), and the facilitator client's queue when it shows one. */
export interface PaidCallsNow {
  inFlight: number;
  limit: number;
  /** Refused as busy since this node started. */
  refused: number;
  /** Verify and settle requests waiting for a connection to the facilitator, and those under way. */
  facilitator?: { pending: number; running: number };
}

interface RouteChildren {
  duration: HistogramChild;
  byStatus: Map<number, { value: number }>;
}

export class Metrics implements PaywallEvents {
  readonly registry = new Registry();
  // Counted on every request (402s included) or read: the hot kind (hot-metrics.ts).
  private readonly httpRequests: HotCounter;
  private readonly httpDuration: HotHistogram;
  private readonly http = new Map<string, Map<string, RouteChildren>>();
  private readonly challenges: HotCounter;
  private readonly paidCalls: Counter<"sku" | "network">;
  private readonly settleDuration: Histogram<"network" | "outcome">;
  private readonly settleFailures: Counter<"sku" | "network" | "reason">;
  private readonly facilitatorErrors: Counter<"step">;
  private readonly freeSamples: Counter<"sku">;
  private readonly indexerResponses: Counter<"sku" | "extension" | "status">;
  private readonly upstreamRequests: HotCounter;
  private readonly upstreamErrors: Counter<"upstream" | "reason">;
  private readonly upstreamDuration: HotHistogram;
  private readonly cacheReads: HotCounter;
  private readonly paidCallsRefused: Counter<"sku">;
  /** Read when scraped; unset until payments are ready. */
  private paidCallsNow: (() => PaidCallsNow | undefined) | undefined;

  constructor(storeGauges?: StoreGauges) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new HotCounter(
      "paycall_http_requests_total",
      "HTTP requests answered, by route template, method and status",
      this.registry,
    );
    this.httpDuration = new HotHistogram(
      "paycall_http_request_duration_seconds",
      "Time from the request to its response, by route template and method",
      HTTP_BUCKETS,
      this.registry,
    );
    this.challenges = new HotCounter(
      "paycall_challenges_total",
      "402 answers to requests without a payment, by product",
      this.registry,
    );
    this.paidCalls = new Counter({
      name: "paycall_paid_calls_total",
      help: "Paid calls whose payment the facilitator settled, by product and network",
      labelNames: ["sku", "network"],
      registers,
    });
    this.settleDuration = new Histogram({
      name: "paycall_settle_duration_seconds",
      help: "Time the facilitator took to settle a payment, by network and outcome (settled, failed, unknown)",
      labelNames: ["network", "outcome"],
      buckets: SLOW_BUCKETS,
      registers,
    });
    this.settleFailures = new Counter({
      name: "paycall_settle_failures_total",
      help: "Settlements that failed (the facilitator's reason) or whose outcome is unknown (reason unknown)",
      labelNames: ["sku", "network", "reason"],
      registers,
    });
    this.facilitatorErrors = new Counter({
      name: "paycall_facilitator_errors_total",
      help: "Facilitator calls that threw instead of answering (unreachable, timed out, malformed), by step",
      labelNames: ["step"],
      registers,
    });
    this.freeSamples = new Counter({
      name: "paycall_free_samples_total",
      help: "Free samples served, by product",
      labelNames: ["sku"],
      registers,
    });
    this.indexerResponses = new Counter({
      name: "paycall_facilitator_extension_responses_total",
      help: "The facilitator's EXTENSION-RESPONSES after settlements (the Bazaar's cataloguing verdict), by product, extension and status",
      labelNames: ["sku", "extension", "status"],
      registers,
    });
    this.upstreamRequests = new HotCounter(
      "paycall_upstream_requests_total",
      "Requests sent to upstreams (recorded answers under UPSTREAMS=replay), by upstream and HTTP status, or timeout / network",
      this.registry,
    );
    this.upstreamErrors = new Counter({
      name: "paycall_upstream_errors_total",
      help: "Upstream requests that failed: timeout, network, http_429, http_5xx",
      labelNames: ["upstream", "reason"],
      registers,
    });
    this.upstreamDuration = new HotHistogram(
      "paycall_upstream_request_duration_seconds",
      "Time to an upstream's response headers, by upstream",
      SLOW_BUCKETS,
      this.registry,
    );
    this.cacheReads = new HotCounter(
      "paycall_cache_reads_total",
      "Reads of cached documents, by cache family and result (hit: the document was there, miss: it was not)",
      this.registry,
    );
    this.paidCallsRefused = new Counter({
      name: "paycall_paid_calls_refused_total",
      help: "Paid requests refused with 503 before verify because this node held PAID_CALLS_MAX_IN_FLIGHT paid calls, by product",
      labelNames: ["sku"],
      registers,
    });
    this.paidCallGauges(registers);
    if (storeGauges) storeGauges.register(registers);
  }

  /** Where the in-flight gauges read this node's paid calls (the service sets it once payments are ready). */
  watchPaidCalls(now: () => PaidCallsNow | undefined): void {
    this.paidCallsNow = now;
  }

  private paidCallGauges(registers: Registry[]): void {
    const now = () => this.paidCallsNow?.();
    new Gauge({
      name: "paycall_paid_calls_in_flight",
      help: "Paid calls this node holds now, from admission (before verify) to the end of settlement",
      registers,
      collect() {
        this.set(now()?.inFlight ?? 0);
      },
    });
    new Gauge({
      name: "paycall_paid_calls_in_flight_limit",
      help: "PAID_CALLS_MAX_IN_FLIGHT: paid calls this node holds at once before refusing with 503",
      registers,
      collect() {
        const figures = now();
        if (figures) this.set(figures.limit);
      },
    });
    new Gauge({
      name: "paycall_facilitator_requests",
      help: "Verify and settle requests to the facilitator: pending (waiting for a connection) and running",
      labelNames: ["state"],
      registers,
      collect() {
        const queue = now()?.facilitator;
        this.reset();
        if (!queue) return;
        this.set({ state: "pending" }, queue.pending);
        this.set({ state: "running" }, queue.running);
      },
    });
  }

  /** One answered request; `route` is the matched route template ("unmatched" when none matched). */
  request(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.http.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.http.set(route, byMethod);
    }
    let children = byMethod.get(method);
    if (!children) {
      children = { duration: this.httpDuration.child({ route, method }), byStatus: new Map() };
      byMethod.set(method, children);
    }
    let count = children.byStatus.get(status);
    if (!count) {
      count = this.httpRequests.child({ route, method, status: String(status) });
      children.byStatus.set(status, count);
    }
    count.value++;
    this.httpDuration.observe(children.duration, seconds);
  }

  challenge(sku: string): void {
    this.challenges.for(sku, () => ({ sku })).value++;
  }

  freeSample(sku: string): void {
    this.freeSamples.inc({ sku });
  }

  facilitatorError(step: "verify" | "settle"): void {
    this.facilitatorErrors.inc({ step });
  }

  settleEnded(sku: string, network: string, ms: number, failure?: string): void {
    const outcome = failure === undefined ? "settled" : failure === "unknown" ? "unknown" : "failed";
    this.settleDuration.observe({ network, outcome }, ms / 1000);
    if (failure === undefined) this.paidCalls.inc({ sku, network });
    else this.settleFailures.inc({ sku, network, reason: reasonLabel(failure) });
  }

  extensionResponses(sku: string, responses: Record<string, unknown>): void {
    for (const { extension, status } of indexerVerdicts(responses)) {
      this.indexerResponses.inc({ sku, extension: reasonLabel(extension), status });
    }
  }

  paidCallRefused(sku: string): void {
    this.paidCallsRefused.inc({ sku });
  }

  /** One exchange with an upstream: its HTTP status, or how it failed. */
  upstreamExchange(upstream: string, status: number | "timeout" | "network", ms: number): void {
    this.upstreamRequests.for(`${upstream} ${status}`, () => ({ upstream, status: String(status) })).value++;
    this.upstreamDuration.observe(
      this.upstreamDuration.for(upstream, () => ({ upstream })),
      ms / 1000,
    );
    const reason =
      typeof status === "string"
        ? status
        : status === 429
          ? "http_429"
          : status >= 500
            ? "http_5xx"
            : undefined;
    if (reason) this.upstreamErrors.inc({ upstream, reason });
  }

  cacheRead(family: string, hit: boolean): void {
    const result = hit ? "hit" : "miss";
    this.cacheReads.for(`${family} ${result}`, () => ({ family, result })).value++;
  }

  /** Each facilitator's circuit, failures and call latency (facilitator-metrics.ts). */
  watchFacilitators(set: WatchedFacilitators): void {
    registerFacilitatorMetrics(this.registry, set);
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
