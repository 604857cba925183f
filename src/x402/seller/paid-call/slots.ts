// This node's paid calls in flight against PAID_CALLS_MAX_IN_FLIGHT: taken by the admit stage (admit.ts), given
// back when the call ends (charge.ts), read by the metrics and the operator page.

/** The paid calls in flight on this node, against its limit, and how many were refused for it since start. */
export class PaidCallSlots {
  readonly limit: number;
  #inFlight = 0;
  #refused = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get refused(): number {
    return this.#refused;
  }

  /** Takes a slot; false (and counted as refused) when every slot is held. */
  take(): boolean {
    if (this.#inFlight >= this.limit) {
      this.#refused++;
      return false;
    }
    this.#inFlight++;
    return true;
  }

  release(): void {
    this.#inFlight--;
  }

  figures(): { inFlight: number; limit: number; refused: number } {
    return { inFlight: this.#inFlight, limit: this.limit, refused: this.#refused };
  }
}
