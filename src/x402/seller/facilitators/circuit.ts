// One facilitator's circuit: closed while it answers; open after `threshold` consecutive failures, when payments
// go to the next facilitator; half-open while a probe of /supported, after `openMs`, decides whether to close it.

export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitSettings {
  threshold: number;
  openMs: number;
}

export class Circuit {
  #state: CircuitState = "closed";
  #failures = 0;
  #openedAt = 0;
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

  beginProbe(): void {
    if (this.#state === "open") this.#set("half-open");
  }

  succeeded(): void {
    this.#failures = 0;
    if (this.#state !== "closed") this.#set("closed");
  }

  failed(now = Date.now()): void {
    this.#failures++;
    if (
      this.#state === "half-open" ||
      (this.#state === "closed" && this.#failures >= this.#settings.threshold)
    ) {
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
