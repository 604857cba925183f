// A polite client for one upstream: its own base URL, User-Agent, concurrency and rate, timeouts,
// retries with backoff on 429/5xx honouring Retry-After, and conditional requests.
import { setTimeout as sleep } from "node:timers/promises";
import type { RecordingIndex } from "./recordings.ts";

export interface UpstreamSpec {
  name: string;
  /** The documented production base URL; `<NAME>_BASE_URL` overrides it. */
  defaultBaseUrl: string;
  maxConcurrent?: number;
  /** Minimum gap between two request starts, in ms (10 requests a second = 100). */
  minIntervalMs?: number;
  /**
   * Upstreams with the same budget share one request spacing (one organisation's limit over several hosts,
   * as SEC's over data.sec.gov and www.sec.gov). Default: the upstream's own name.
   */
  budget?: string;
  timeoutMs?: number;
  retries?: number;
  /** Longest Retry-After the client waits for; a longer one fails the request at once. */
  maxRetryAfterMs?: number;
}

export interface UpstreamRequest {
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  etag?: string | null;
  lastModified?: string | null;
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

export interface ClientOptions {
  baseUrl: string;
  userAgent: string;
  replay?: RecordingIndex;
  fetchImpl?: typeof fetch;
  /** Shrinks every backoff (tests). */
  backoffScale?: number;
  /**
   * Books the start time of the next request to an upstream across every process sharing the store, so
   * that minIntervalMs holds for the whole cluster (SEC: 10 requests per second in total). Returns when
   * (epoch ms) this request may start. Without it the spacing holds per process.
   */
  reserveStart?: (upstream: string, intervalMs: number) => Promise<number>;
}

function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "timed out";
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message;
  return detail ? `${String(error)}: ${detail}` : String(error);
}

export class UpstreamClient {
  readonly name: string;
  readonly baseUrl: string;
  private readonly spec: Required<Omit<UpstreamSpec, "name" | "defaultBaseUrl">>;
  private readonly budget: string;
  private readonly options: ClientOptions;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private nextStartAt = 0;

  constructor(spec: UpstreamSpec, options: ClientOptions) {
    this.name = spec.name;
    this.budget = spec.budget ?? spec.name;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.spec = {
      maxConcurrent: spec.maxConcurrent ?? 2,
      minIntervalMs: spec.minIntervalMs ?? 250,
      timeoutMs: spec.timeoutMs ?? 30_000,
      retries: spec.retries ?? 3,
      maxRetryAfterMs: spec.maxRetryAfterMs ?? 120_000,
      budget: spec.budget ?? spec.name,
    };
    this.options = options;
  }

  url(request: UpstreamRequest): string {
    const url = new URL(this.baseUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async get(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = this.url(request);
    if (this.options.replay) return this.options.replay.answer(this.name, "GET", request, url);
    const headers: Record<string, string> = { "user-agent": this.options.userAgent, ...request.headers };
    if (request.etag) headers["if-none-match"] = request.etag;
    if (request.lastModified) headers["if-modified-since"] = request.lastModified;
    const scale = this.options.backoffScale ?? 1;
    let lastError: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.spec.retries; attempt++) {
      let waitMs = scale * Math.min(30_000, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
      try {
        // The slot is held until the body is read, so the concurrency limit covers whole exchanges.
        const outcome = await this.withSlot(() => this.attempt(url, headers));
        if ("response" in outcome) return outcome.response;
        lastError = outcome.error;
        if (outcome.retryAfterMs !== undefined) {
          if (outcome.retryAfterMs > this.spec.maxRetryAfterMs) {
            throw new UpstreamError(
              this.name,
              `asked to retry after ${Math.round(outcome.retryAfterMs / 1000)} s`,
              outcome.error.status,
              true,
              outcome.retryAfterMs,
            );
          }
          waitMs = outcome.retryAfterMs * scale;
        }
      } catch (error) {
        if (error instanceof UpstreamError && error.final) throw error;
        const reason = describeFailure(error);
        lastError =
          error instanceof UpstreamError ? error : new UpstreamError(this.name, `${reason} (${url})`);
      }
      if (attempt < this.spec.retries) await sleep(waitMs);
    }
    throw lastError ?? new UpstreamError(this.name, `no answer from ${url}`);
  }

  private async attempt(
    url: string,
    headers: Record<string, string>,
  ): Promise<{ response: UpstreamResponse } | { error: UpstreamError; retryAfterMs: number | undefined }> {
    const response = await (this.options.fetchImpl ?? fetch)(url, {
      headers,
      signal: AbortSignal.timeout(this.spec.timeoutMs),
      redirect: "follow",
    });
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel();
      return {
        error: new UpstreamError(this.name, `HTTP ${response.status} from ${url}`, response.status),
        retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
      };
    }
    const notModified = response.status === 304;
    return {
      response: {
        status: response.status,
        headers: response.headers,
        body: notModified ? "" : await response.text(),
        url,
        notModified,
        recordedSample: false,
      },
    };
  }

  private async bookStart(): Promise<number> {
    const interval = this.spec.minIntervalMs;
    if (this.options.reserveStart && interval > 0) {
      try {
        return await this.options.reserveStart(this.budget, interval);
      } catch {
        // The store is unreachable: this process's own spacing still holds.
      }
    }
    const startAt = Math.max(Date.now(), this.nextStartAt);
    this.nextStartAt = startAt + interval;
    return startAt;
  }

  private async withSlot<T>(run: () => Promise<T>): Promise<T> {
    while (this.active >= this.spec.maxConcurrent) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active++;
    try {
      const startAt = await this.bookStart();
      const now = Date.now();
      if (startAt > now) await sleep(startAt - now);
      return await run();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
