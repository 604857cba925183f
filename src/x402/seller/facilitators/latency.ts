// The latency of one facilitator's verify or settle calls: the last few hundred, for p50 and p99.

const WINDOW = 512;

export class LatencyWindow {
  readonly #samples: number[] = [];
  #next = 0;

  add(ms: number): void {
    if (this.#samples.length < WINDOW) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % WINDOW;
  }

  /** The q-quantile (0..1) in ms of the calls kept, null before the first. */
  quantile(q: number): number | null {
    if (this.#samples.length === 0) return null;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  }
}
