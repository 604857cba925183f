// The SDK's FacilitatorClient over FACILITATOR_URL's ordered list. Verify goes to the first healthy facilitator
// that supports the payment's (scheme, network) and moves freely to the next when one fails: verify moves no
// money. A settlement goes to the facilitator that verified the payment while it is healthy, and to another only
// when the first provably never received it (its connection was refused or could not be made): once a settle may
// have been written, its outcome stays with that facilitator and, undecided, with the chain.
import type { FacilitatorClient } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  type SupportedKind,
  type SupportedResponse,
  VerifyError,
  type VerifyResponse,
} from "@x402/core/types";
import type { FacilitatorHealth } from "../../../config.ts";
import { errorText } from "../../../json.ts";
import type { Logger } from "../../../log.ts";
import type { StoredSupported } from "../../../store/facilitator-status.ts";
import { paymentNonceKey } from "../payment-identity.ts";
import type { CircuitState } from "./circuit.ts";
import { Member, type MemberStatus, type Operation } from "./member.ts";
import { FacilitatorNotReachedError } from "./not-reached.ts";
import { PaymentRoutes } from "./routes.ts";

/** No facilitator can take this payment now (every one supporting it has its circuit open). */
export class NoFacilitatorError extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = "NoFacilitatorError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Each call's facilitator, operation, time and whether it counted as a failure (metrics). */
interface FacilitatorObserver {
  called(facilitator: string, operation: Operation | "supported", ms: number, failed: boolean): void;
}

/** The store's facilitator rows: /supported answers kept between restarts, and each one's reported health. */
export interface FacilitatorRecords {
  saveSupported(facilitator: string, supported: unknown): Promise<void>;
  allSupported(): Promise<StoredSupported[]>;
  report(facilitator: string, status: Record<string, unknown>): Promise<void>;
}

/** How often a serving node writes its facilitators' health to the store (and at each circuit change). */
const REPORT_EVERY_MS = 15_000;

interface FacilitatorSetOptions {
  health: FacilitatorHealth;
  /** How long the set remembers which facilitator verified and settled a payment (a paid call's longest). */
  routeTtlMs: number;
  log: Logger;
  records?: FacilitatorRecords;
  /** Write each facilitator's health to the records (serving nodes; a worker's would read idle). */
  report?: boolean;
}

interface FacilitatorClientEntry {
  identity: { label: string; storeKey: string };
  client: FacilitatorClient & { close?: () => Promise<void> };
}

/** Whether the set can take payments: ok, degraded (some facilitator is down), or down (none can). */
interface FacilitatorHealthReport {
  state: "ok" | "degraded" | "down";
  problems: string[];
}

interface FacilitatorSetStatus {
  facilitators: MemberStatus[];
  lastServed: { verify: string | null; settle: string | null };
}

/** A verdict (a 4xx with isValid/success) is an answer; anything else thrown is the facilitator failing. */
function failure(error: unknown): boolean {
  return !((error instanceof VerifyError || error instanceof SettleError) && error.statusCode < 500);
}

function validSupported(data: unknown): data is SupportedResponse {
  return !!data && typeof data === "object" && Array.isArray((data as SupportedResponse).kinds);
}

export class FacilitatorSet implements FacilitatorClient {
  readonly members: Member[];
  readonly #options: FacilitatorSetOptions;
  readonly #log: Logger;
  readonly #routes: PaymentRoutes<Member>;
  readonly #listeners = new Set<() => void>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #lastServed: Record<Operation, Member | undefined> = { verify: undefined, settle: undefined };
  #observer: FacilitatorObserver | undefined;
  #offer = "";
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(entries: FacilitatorClientEntry[], options: FacilitatorSetOptions) {
    this.#options = options;
    this.#log = options.log;
    this.#routes = new PaymentRoutes(options.routeTtlMs);
    const settings = { threshold: options.health.failureThreshold, openMs: options.health.openMs };
    this.members = entries.map(
      (e) =>
        new Member(e.identity, e.client, settings, (m, state, previous) => this.#changed(m, state, previous)),
    );
  }

  /** Reads the stored /supported copies, starts reading each facilitator's and re-reads them on an interval. */
  async start(): Promise<void> {
    const stored = await this.#options.records?.allSupported().catch((error: unknown) => {
      this.#log.warn({ err: errorText(error) }, "cannot read the stored facilitator /supported answers");
      return [];
    });
    for (const copy of stored ?? []) {
      const member = this.members.find((m) => m.storeKey === copy.facilitator);
      if (member && !member.supported && validSupported(copy.supported)) {
        member.supported = copy.supported;
        member.supportedFrom = "stored";
        member.supportedReadAt = copy.readAt;
      }
    }
    this.#offerMaybeChanged();
    this.#reading = this.#readAll();
    const refresh = setInterval(() => {
      void this.#readAll(true);
    }, this.#options.health.supportedRefreshMs);
    refresh.unref();
    this.#timers.add(refresh);
    if (this.#options.report) {
      const report = setInterval(() => void this.#report(), REPORT_EVERY_MS);
      report.unref();
      this.#timers.add(report);
    }
  }

  observe(observer: FacilitatorObserver): void {
    this.#observer = observer;
  }

  /** Runs whenever the (scheme, network) kinds the 402 may offer change; returns its removal. */
  onOfferChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Some facilitator's /supported is known (read now or kept from before): payments can start. */
  get ready(): boolean {
    return this.members.some((m) => m.supported);
  }

  /** The union of what the offering facilitators support; waits for a live read when nothing is known yet. */
  async getSupported(): Promise<SupportedResponse> {
    if (!this.ready) {
      await (this.#reading ?? this.#readAll());
      this.#reading = undefined;
    }
    const offering = this.#offering();
    if (offering.length === 0) throw new Error("no facilitator answered /supported yet");
    const kinds: SupportedKind[] = [];
    const seen = new Set<string>();
    for (const member of offering) {
      for (const kind of member.supported?.kinds ?? []) {
        const key = `${kind.x402Version}|${kind.network}|${kind.scheme}`;
        if (!seen.has(key)) kinds.push(kind);
        seen.add(key);
      }
    }
    const extensions = [...new Set(offering.flatMap((m) => m.supported?.extensions ?? []))];
    const signers: Record<string, string[]> = {};
    for (const member of offering) {
      for (const [family, list] of Object.entries(member.supported?.signers ?? {}))
        signers[family] = [...new Set([...(signers[family] ?? []), ...list])];
    }
    return { kinds, extensions, signers };
  }

  /** The kind the 402 offers for (version, network, scheme): the first offering facilitator's. */
  supportedKind(version: number, network: string, scheme: string): SupportedKind | undefined {
    for (const member of this.#offering()) {
      const kind = member.kind(version, network, scheme);
      if (kind) return kind;
    }
    return undefined;
  }

  extensions(version: number, network: string, scheme: string): string[] {
    const member = this.#offering().find((m) => m.kind(version, network, scheme));
    return member?.supported?.extensions ?? [];
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const candidates = this.#supporting(payload.x402Version, requirements).filter((m) => m.circuit.usable);
    let last: unknown;
    let tried = false;
    for (const [i, member] of candidates.entries()) {
      if (!member.circuit.admit()) continue; // half-open, its one trial taken by another payment
      tried = true;
      try {
        const answer = await this.#call(member, "verify", () => member.client.verify(payload, requirements));
        this.#routes.set(paymentNonceKey(payload), { verifiedBy: member });
        return answer;
      } catch (error) {
        if (error instanceof VerifyError && error.statusCode < 500) {
          this.#routes.set(paymentNonceKey(payload), { verifiedBy: member });
          throw error;
        }
        last = error;
        const next = candidates[i + 1];
        if (next)
          this.#log.warn(
            { facilitator: member.label, next: next.label, err: errorText(error) },
            "facilitator verify failed; verifying with the next facilitator",
          );
      }
    }
    if (!tried) throw this.#none(requirements);
    throw last;
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    const key = paymentNonceKey(payload);
    const route = this.#routes.get(key);
    // The same settlement asked again (the SDK retries settlement_pending): only where it was sent.
    const sentTo = route?.settledBy;
    if (sentTo) return this.#call(sentTo, "settle", () => sentTo.client.settle(payload, requirements));
    const supporting = this.#supporting(payload.x402Version, requirements);
    const healthy = supporting.filter((m) => m.circuit.healthy);
    // With every circuit open the settlement is still sent: the payment was verified and its answer is ready.
    const pool = healthy.length > 0 ? healthy : supporting;
    const verifier = route?.verifiedBy;
    const candidates =
      verifier && pool.includes(verifier) ? [verifier, ...pool.filter((m) => m !== verifier)] : pool;
    if (candidates.length === 0) throw this.#none(requirements);
    for (const [i, member] of candidates.entries()) {
      this.#routes.set(key, { settledBy: member });
      try {
        return await this.#call(member, "settle", () => member.client.settle(payload, requirements));
      } catch (error) {
        const next = candidates[i + 1];
        if (!(error instanceof FacilitatorNotReachedError) || !next) throw error;
        this.#log.warn(
          { facilitator: member.label, next: next.label, err: errorText(error) },
          "settlement never reached the facilitator (no connection); sending it to the next facilitator",
        );
      }
    }
    throw new Error("unreachable");
  }

  health(): FacilitatorHealthReport {
    const problems: string[] = [];
    for (const member of this.members) {
      if (member.circuit.state !== "closed")
        problems.push(
          `facilitator ${member.label}: circuit ${member.circuit.state} after ${member.circuit.consecutiveFailures} consecutive failures`,
        );
      else if (!member.supported) problems.push(`facilitator ${member.label}: /supported not read yet`);
    }
    const takesPayments = this.members.some((m) => m.circuit.usable && m.supported);
    return { state: !takesPayments ? "down" : problems.length ? "degraded" : "ok", problems };
  }

  status(): FacilitatorSetStatus {
    return {
      facilitators: this.members.map((m) => m.status()),
      lastServed: {
        verify: this.#lastServed.verify?.label ?? null,
        settle: this.#lastServed.settle?.label ?? null,
      },
    };
  }

  /** Verify and settle requests waiting for a connection (pending) and under way (running), over every member. */
  queue(): { pending: number; running: number } {
    let pending = 0;
    let running = 0;
    for (const member of this.members) {
      const queue = member.client.queue?.();
      pending += queue?.pending ?? 0;
      running += queue?.running ?? 0;
    }
    return { pending, running };
  }

  async close(): Promise<void> {
    await this.#report();
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(this.members.map((m) => m.client.close?.()));
  }

  /** Facilitators whose kinds the 402 offers: the usable ones, or, when none is, every one known. */
  #offering(): Member[] {
    const known = this.members.filter((m) => m.supported);
    const usable = known.filter((m) => m.circuit.usable);
    return usable.length > 0 ? usable : known;
  }

  #supporting(version: number, requirements: PaymentRequirements): Member[] {
    return this.members.filter((m) => m.kind(version, requirements.network, requirements.scheme));
  }

  #none(requirements: PaymentRequirements): NoFacilitatorError {
    const now = Date.now();
    const waits = this.members.map((m) => m.circuit.msUntilProbe(now)).filter((ms) => ms > 0);
    const seconds = Math.max(1, Math.ceil(Math.min(this.#options.health.openMs, ...waits) / 1000));
    return new NoFacilitatorError(
      `no facilitator can take ${requirements.scheme} payments on ${requirements.network} now`,
      seconds,
    );
  }

  /** One call, timed and counted for its facilitator's circuit; a verdict counts as an answer. */
  async #call<T>(member: Member, operation: Operation, send: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const answer = await send();
      this.#answered(member, operation, performance.now() - started);
      return answer;
    } catch (error) {
      const ms = performance.now() - started;
      if (failure(error)) {
        this.#observer?.called(member.label, operation, ms, true);
        member.circuit.failed();
      } else this.#answered(member, operation, ms);
      throw error;
    }
  }

  #answered(member: Member, operation: Operation, ms: number): void {
    this.#observer?.called(member.label, operation, ms, false);
    member.circuit.succeeded();
    member.answered(operation, ms);
    const previous = this.#lastServed[operation];
    if (previous !== member) {
      this.#lastServed[operation] = member;
      if (previous)
        this.#log.info(
          { operation, from: previous.label, to: member.label },
          `facilitator ${member.label} now serves ${operation}`,
        );
    }
  }

  /** Reads every facilitator's /supported (on the interval: those whose circuit is not open). */
  async #readAll(skipOpen = false): Promise<void> {
    await Promise.all(
      this.members.filter((m) => !skipOpen || m.circuit.state === "closed").map((m) => this.#read(m)),
    );
  }

  /** One /supported read; true when it answered. Kept in the store so a restart during an outage has it. */
  async #read(member: Member): Promise<boolean> {
    const started = performance.now();
    try {
      const supported = await member.client.getSupported();
      if (!validSupported(supported)) throw new Error("/supported answered without a kinds list");
      member.supported = supported;
      member.supportedFrom = "live";
      member.supportedReadAt = new Date().toISOString();
      this.#observer?.called(member.label, "supported", performance.now() - started, false);
      this.#options.records?.saveSupported(member.storeKey, supported).catch((error: unknown) => {
        this.#log.warn({ facilitator: member.label, err: errorText(error) }, "cannot store /supported");
      });
      return true;
    } catch (error) {
      this.#observer?.called(member.label, "supported", performance.now() - started, true);
      if (!this.#closed)
        this.#log.warn({ facilitator: member.label, err: errorText(error) }, "facilitator /supported failed");
      if (member.circuit.state === "closed") member.circuit.failed();
      return false;
    } finally {
      this.#offerMaybeChanged();
    }
  }

  /** The probe after the open period: /supported answers → half-open (a verify may try it); fails → open again. */
  async #probe(member: Member): Promise<void> {
    if (this.#closed || member.circuit.state !== "open") return;
    if (await this.#read(member)) member.circuit.probeAnswered();
    else member.circuit.failed();
  }

  #changed(member: Member, state: CircuitState, previous: CircuitState): void {
    const context = {
      facilitator: member.label,
      state,
      previous,
      consecutiveFailures: member.circuit.consecutiveFailures,
    };
    if (state === "open") {
      this.#log.warn(
        context,
        `facilitator ${member.label} circuit open: payments go to the next facilitator`,
      );
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        void this.#probe(member);
      }, this.#options.health.openMs);
      timer.unref();
      this.#timers.add(timer);
    } else if (state === "half-open")
      this.#log.info(context, `facilitator ${member.label} circuit half-open: a payment's verify tries it`);
    else this.#log.info(context, `facilitator ${member.label} circuit closed: taking payments again`);
    this.#offerMaybeChanged();
    void this.#report();
  }

  /** Each facilitator's health into the store, for /admin and `npm run stats` (any node's last word). */
  async #report(): Promise<void> {
    const records = this.#options.records;
    if (!records || !this.#options.report || this.#closed) return;
    const { lastServed } = this.status();
    await Promise.all(
      this.members.map((member) => {
        const status = {
          ...member.status(),
          servedLast: {
            verify: lastServed.verify === member.label,
            settle: lastServed.settle === member.label,
          },
        };
        return records.report(member.storeKey, status).catch((error: unknown) => {
          this.#log.warn(
            { facilitator: member.label, err: errorText(error) },
            "cannot store the facilitator's health",
          );
        });
      }),
    );
  }

  /** Tells the listeners (the paywall's 402 caches) when the offered kinds change. */
  #offerMaybeChanged(): void {
    const offer = JSON.stringify(this.#offering().map((m) => [m.supported?.kinds, m.supported?.extensions]));
    if (offer === this.#offer) return;
    const first = this.#offer === "";
    this.#offer = offer;
    if (!first) for (const listener of this.#listeners) listener();
  }
}
