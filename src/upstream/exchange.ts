// One exchange with an upstream as the client and the recordings both see it: the request, the answer, and
// the errors a failed exchange raises. Kept apart from the client so that recordings need not import it.
export interface UpstreamRequest {
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  etag?: string | null;
  lastModified?: string | null;
  /** Sent by background work (a warmer): it may use only the spec's backgroundShare of each window. */
  background?: boolean;
  /** Longest wait for the budget (spacing, windows, pause) before giving up; default maxRetryAfterMs. */
  maxWaitMs?: number;
  /** Told of each refusal the spec's throttle policy pauses for and retries (a caller's own count of them). */
  onRefused?: (status: number) => void;
}

export interface UpstreamResponse {
  status: number;
  headers: Headers;
  body: string;
  url: string;
  /** The upstream answered 304 to a conditional request: the cached copy is still current. */
  notModified: boolean;
  /** The answer came from a stored recording (UPSTREAMS=replay), not from the upstream. */
  recordedSample: boolean;
}

export class UpstreamError extends Error {
  readonly upstream: string;
  readonly status: number | undefined;
  /** Not worth retrying (the upstream asked for a longer pause than we wait). */
  readonly final: boolean;
  /** The pause the upstream asked for, when it named one (Retry-After). */
  readonly retryAfterMs: number | undefined;
  constructor(upstream: string, message: string, status?: number, final = false, retryAfterMs?: number) {
    super(`${upstream}: ${message}`);
    this.upstream = upstream;
    this.status = status;
    this.final = final;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Nothing was sent: the upstream's budget is paused (it refused us) or its window limits are spent until
 * `availableAt`, further away than the caller waits. Answer buyers 503 with Retry-After.
 */
export class UpstreamBudgetError extends UpstreamError {
  readonly availableAt: Date;
  readonly reason: "paused" | "spent";
  constructor(
    upstream: string,
    availableAtMs: number,
    reason: "paused" | "spent",
    detail: string,
    status?: number,
  ) {
    const waitMs = Math.max(0, availableAtMs - Date.now());
    super(upstream, detail, status, true, waitMs);
    this.name = "UpstreamBudgetError";
    this.availableAt = new Date(availableAtMs);
    this.reason = reason;
  }

  /** Whole seconds until the budget frees, at least 1 (for Retry-After). */
  get retryAfterSec(): number {
    return Math.max(1, Math.ceil((this.availableAt.getTime() - Date.now()) / 1000));
  }
}
