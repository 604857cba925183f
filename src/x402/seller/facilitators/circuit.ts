// One facilitator's circuit: closed while it answers; open after `threshold` consecutive failures, when payments
// go to the next facilitator. After `openMs` a probe of /supported runs: answered, the circuit is half-open and
// one payment's verify is sent there as a trial (it fails over like any verify); that verify answering closes
// the circuit, failing opens it again. /supported alone does not close it: it can answer while verify fails.

export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitSettings {
  threshold: number;
  openMs: number;
}

export class Circuit {
  #state: CircuitState = "closed";
  #failures = 0;
  #openedAt = 0;
  #trialTaken = false;
  readonly #settings: CircuitSettings;
  /** Runs at each change of state, with the state left. */
  readonly #changed: (state: CircuitState, previous: CircuitState) => void;

  constructor(settings: CircuitSettings, changed: (state: CircuitState, previous: CircuitState) => void) {
    this.#settings = settings;
    this.#changed = changed;
  }

  get state(): CircuitState {
    return this.#state;
  }

  get consecutiveFailures(): number {
    return this.#failures;
  }

  /** Payments may be sent (an open circuit takes none until its probe closes it). */
  get healthy(): boolean {
    return this.#state === "closed";
  }

  /** How long until the probe of an open circuit is due (0 when due or not open). */
  msUntilProbe(now = Date.now()): number {
    return this.#state === "open" ? Math.max(0, this.#openedAt + this.#settings.openMs - now) : 0;
  }

  /** The probe of /supported answered: the next verify may try this facilitator. */
  probeAnswered(): void {
    if (this.#state === "open") {
      this.#trialTaken = false;
      this.#set("half-open");
    }
  }

  /** May a call be sent now: closed, or half-open with its one trial not yet taken (taking it). */
  admit(): boolean {
    if (this.#state === "closed") return true;
    if (this.#state !== "half-open" || this.#trialTaken) return false;
    this.#trialTaken = true;
    return true;
  }

  /** Closed, or half-open awaiting its trial: the 402 may offer what it supports, a verify may try it. */
  get usable(): boolean {
    return this.#state === "closed" || (this.#state === "half-open" && !this.#trialTaken);
  }

  succeeded(): void {
    this.#failures = 0;
    this.#trialTaken = false;
    if (this.#state !== "closed") this.#set("closed");
  }

  /** A failed call or probe; an open circuit failing its probe stays open for another period. */
  failed(now = Date.now()): void {
    this.#failures++;
    this.#trialTaken = false;
    if (this.#state !== "closed" || this.#failures >= this.#settings.threshold) {
      this.#openedAt = now;
      this.#set("open");
    }
  }

  #set(state: CircuitState): void {
    const previous = this.#state;
    this.#state = state;
    this.#changed(state, previous);
  }
}
