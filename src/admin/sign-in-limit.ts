// Failed sign-ins per client: a request that presents an admin credential (token, Bearer header or cookie)
// that does not open the routes counts; past MAX_FAILURES in a window the client is refused (429) on every
// admin route, right token or not, until the window ends. Per node: N nodes allow N × MAX_FAILURES.
export const MAX_FAILURES = 10;
const WINDOW_MS = 15 * 60_000;
/** Clients tracked at once; the oldest windows are dropped first past it. */
const MAX_CLIENTS = 50_000;

export class SignInLimiter {
  private readonly failures = new Map<string, { start: number; count: number }>();

  /** Seconds until `client` may try again, or 0 when it may now. */
  blockedFor(client: string, now = Date.now()): number {
    const entry = this.failures.get(client);
    if (!entry || now - entry.start >= WINDOW_MS) return 0;
    return entry.count >= MAX_FAILURES ? Math.max(1, Math.ceil((entry.start + WINDOW_MS - now) / 1000)) : 0;
  }

  fail(client: string, now = Date.now()): void {
    let entry = this.failures.get(client);
    if (!entry || now - entry.start >= WINDOW_MS) {
      this.failures.delete(client);
      if (this.failures.size >= MAX_CLIENTS) {
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) this.failures.delete(oldest);
      }
      entry = { start: now, count: 0 };
      this.failures.set(client, entry);
    }
    entry.count++;
  }
}
