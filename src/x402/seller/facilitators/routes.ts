// Which facilitator verified a payment and which one was sent its settlement, kept for as long as a paid call
// can last (two generations: entries live between one and two periods).

interface PaymentRoute<M> {
  verifiedBy?: M;
  settledBy?: M;
}

export class PaymentRoutes<M> {
  #current = new Map<string, PaymentRoute<M>>();
  #previous = new Map<string, PaymentRoute<M>>();
  #rotatedAt = Date.now();
  readonly #periodMs: number;

  constructor(periodMs: number) {
    this.#periodMs = periodMs;
  }

  get(key: string): PaymentRoute<M> | undefined {
    return this.#current.get(key) ?? this.#previous.get(key);
  }

  set(key: string, update: PaymentRoute<M>): void {
    const now = Date.now();
    if (now - this.#rotatedAt >= this.#periodMs) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#rotatedAt = now;
    }
    this.#current.set(key, { ...this.get(key), ...update });
  }
}
