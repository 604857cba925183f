// One facilitator of the list: its client, circuit, last /supported answer and the latency of its calls.
import type { FacilitatorClient } from "@x402/core/server";
import type { SupportedKind, SupportedResponse } from "@x402/core/types";
import { Circuit, type CircuitSettings, type CircuitState } from "./circuit.ts";
import { LatencyWindow } from "./latency.ts";

export type Operation = "verify" | "settle";

/** A member's client: the SDK's interface, with the pooled client's close and its queue figures where it has them. */
type PooledClient = FacilitatorClient & {
  close?: () => Promise<void>;
  queue?: () => { pending: number; running: number };
};

export interface MemberStatus {
  /** The label of logs and metrics: the facilitator's host (or "local"). */
  facilitator: string;
  state: CircuitState;
  consecutiveFailures: number;
  /** Where its /supported answer came from: read now, the store's copy from before, or not known. */
  supported: "live" | "stored" | "unknown";
  supportedReadAt: string | null;
  /** `scheme network` of each kind it settles. */
  kinds: string[];
  verify: { p50Ms: number | null; p99Ms: number | null; served: number };
  settle: { p50Ms: number | null; p99Ms: number | null; served: number };
  lastServedAt: string | null;
}

export class Member {
  readonly label: string;
  /** The store's key: the URL without credentials or query, or "local". */
  readonly storeKey: string;
  readonly client: PooledClient;
  readonly circuit: Circuit;
  supported: SupportedResponse | undefined;
  supportedFrom: "live" | "stored" | undefined;
  supportedReadAt: string | undefined;
  readonly latency = { verify: new LatencyWindow(), settle: new LatencyWindow() };
  readonly served = { verify: 0, settle: 0 };
  lastServedAt: string | undefined;

  constructor(
    identity: { label: string; storeKey: string },
    client: PooledClient,
    settings: CircuitSettings,
    changed: (member: Member, state: CircuitState, previous: CircuitState) => void,
  ) {
    this.label = identity.label;
    this.storeKey = identity.storeKey;
    this.client = client;
    this.circuit = new Circuit(settings, (state, previous) => changed(this, state, previous));
  }

  kind(version: number, network: string, scheme: string): SupportedKind | undefined {
    return this.supported?.kinds.find(
      (k) => k.x402Version === version && k.network === network && k.scheme === scheme,
    );
  }

  /** A call it answered, and how long it took. */
  answered(operation: Operation, ms: number): void {
    this.latency[operation].add(ms);
    this.served[operation]++;
    this.lastServedAt = new Date().toISOString();
  }

  status(): MemberStatus {
    const timing = (operation: Operation) => ({
      p50Ms: this.latency[operation].quantile(0.5),
      p99Ms: this.latency[operation].quantile(0.99),
      served: this.served[operation],
    });
    return {
      facilitator: this.label,
      state: this.circuit.state,
      consecutiveFailures: this.circuit.consecutiveFailures,
      supported: this.supportedFrom ?? "unknown",
      supportedReadAt: this.supportedReadAt ?? null,
      kinds: (this.supported?.kinds ?? []).map((k) => `${k.scheme} ${k.network}`),
      verify: timing("verify"),
      settle: timing("settle"),
      lastServedAt: this.lastServedAt ?? null,
    };
  }
}

/** Labels by host; two entries on one host are told apart by their position. */
export function memberIdentities(urls: Array<string | "local">): Array<{ label: string; storeKey: string }> {
  const hosts = urls.map((u) => (u === "local" ? "local" : new URL(u).host));
  return urls.map((u, i) => {
    const host = hosts[i] as string;
    const label = hosts.indexOf(host) === hosts.lastIndexOf(host) ? host : `${host}#${i + 1}`;
    if (u === "local") return { label, storeKey: "local" };
    const url = new URL(u);
    return { label, storeKey: `${url.protocol}//${url.host}${url.pathname}` };
  });
}
