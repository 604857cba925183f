// Each facilitator's circuit, consecutive failures and call latency, labelled by its host (never its URL's path,
// query or credentials): the gauges are read from the facilitator set at each scrape.
import { Gauge, Histogram, type Registry } from "prom-client";

/** What the metrics read of the facilitator set (src/x402/seller/facilitators/set.ts). */
export interface WatchedFacilitators {
  readonly members: ReadonlyArray<{
    label: string;
    circuit: { state: "closed" | "half-open" | "open"; consecutiveFailures: number };
  }>;
  observe(observer: {
    called(facilitator: string, operation: string, ms: number, failed: boolean): void;
  }): void;
}

const STATE_VALUE = { closed: 0, "half-open": 1, open: 2 } as const;
const CALL_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function registerFacilitatorMetrics(registry: Registry, set: WatchedFacilitators): void {
  const registers = [registry];
  new Gauge({
    name: "paycall_facilitator_circuit_state",
    help: "Each facilitator's circuit: 0 closed (taking payments), 1 half-open (probing), 2 open (set aside)",
    labelNames: ["facilitator"],
    registers,
    collect() {
      this.reset();
      for (const m of set.members) this.set({ facilitator: m.label }, STATE_VALUE[m.circuit.state]);
    },
  });
  new Gauge({
    name: "paycall_facilitator_consecutive_failures",
    help: "Each facilitator's failed calls (unreachable, timed out, 5xx, malformed) since its last answer",
    labelNames: ["facilitator"],
    registers,
    collect() {
      this.reset();
      for (const m of set.members) this.set({ facilitator: m.label }, m.circuit.consecutiveFailures);
    },
  });
  const calls = new Histogram({
    name: "paycall_facilitator_call_duration_seconds",
    help: "Facilitator calls by facilitator, operation (verify, settle, supported) and outcome (answered, failed)",
    labelNames: ["facilitator", "operation", "outcome"],
    buckets: CALL_BUCKETS,
    registers,
  });
  set.observe({
    called(facilitator, operation, ms, failed) {
      calls.observe({ facilitator, operation, outcome: failed ? "failed" : "answered" }, ms / 1000);
    },
  });
}
