// A polite client for one upstream: its own base URL, User-Agent, concurrency and rate, timeouts,
// retries with backoff on 429/5xx (and the statuses its throttle policy lists) honouring Retry-After, and
// conditional requests; GET, or POST with a JSON body (`postJson`) under the same rules. Upstreams with
// published limits or blocks also book sliding-window budgets and pauses cluster-wide (../budgets/booking.ts).

import { setTimeout as sleep } from "node:timers/promises";
import type { BookingResult, BudgetBook } from "../budgets/booking.ts";
import { hasLimits, type WindowLimits } from "../budgets/windows.ts";
import type { SlotBook, SlotHold } from "../store/upstream-slots.ts";
import {
  UpstreamBudgetError,
  UpstreamError,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./exchange.ts";
import type { RecordingIndex } from "./recordings.ts";

// The exchange's shapes and errors are part of the client's interface: families import them from here.
export { UpstreamBudgetError, UpstreamError, type UpstreamRequest, type UpstreamResponse };

/**
 * How an upstream's refusals (429, an overloaded 504, NVD's 403) pause every request of its budget,
 * cluster-wide.
 */
interface ThrottlePolicy {
  /**
   * Statuses that mean "stop sending for a while" (default: 429). Each is a refusal, never an answer: paused
   * for, retried, and an `UpstreamBudgetError` once the retries are spent, whatever the status.
   */
  statuses?: number[];
  /** The pause when the upstream names none (no Retry-After, nothing from `probe`). */
  defaultPauseMs: number;
  /** The least pause, whatever Retry-After says (SEC blocks for ten minutes and retrying extends it). */
  minPauseMs?: number;
  /** Asks the upstream how long until it takes requests again (Overpass's /api/status), in ms. */
  probe?: (client: UpstreamClient) => Promise<number | undefined>;
}

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
  /** The first back-off after a refusal without Retry-After (doubled on each retry; default 1 s). */
  firstBackoffMs?: number;
  /** Published request limits over sliding windows, booked for the whole cluster. */
  limits?: WindowLimits;
  /** Share of each window background work (warmers) may use; the rest stays for buyers (default 0.6). */
  backgroundShare?: number;
  throttle?: ThrottlePolicy;
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
  /** Windows and pauses: the store's (cluster-wide); the fallback when the store cannot answer. */
  budgets?: BudgetBook;
  localBudgets?: BudgetBook;
  /** maxConcurrent for the whole cluster (live mode); without it, or when the store fails, per process. */
  slots?: SlotBook;
  /** Told of every exchange (metrics): its HTTP status or how it failed, and the time to the headers. */
  observer?: UpstreamObserver;
}

export type UpstreamObserver = (upstream: string, status: number | "timeout" | "network", ms: number) => void;

/**
 * The top-level scalar fields of a JSON body as strings: what a POST recording's `query` is matched against
 * (a POST's parameters travel in its body).
 */
export function bodyFields(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fields;
  for (const [key, value] of Object.entries(body)) {
    if (value !== undefined && value !== null && typeof value !== "object") fields[key] = String(value);
  }
  return fields;
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
  private readonly spec: Required<
    Omit<UpstreamSpec, "name" | "defaultBaseUrl" | "limits" | "throttle" | "backgroundShare">
  >;
  readonly limits: WindowLimits | undefined;
  readonly throttle: ThrottlePolicy | undefined;
  private readonly backgroundShare: number;
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
      firstBackoffMs: spec.firstBackoffMs ?? 1000,
      budget: spec.budget ?? spec.name,
    };
    this.limits = hasLimits(spec.limits) ? spec.limits : undefined;
    this.throttle = spec.throttle;
    this.backgroundShare = spec.backgroundShare ?? 0.6;
    this.options = options;
  }

  /** The budget this upstream books against (shared by upstreams of one organisation). */
  get budgetName(): string {
    return this.budget;
  }

  /** The budget's pause and what is left of each window, for status routes. */
  async budgetState() {
    const book = this.options.budgets ?? this.options.localBudgets;
    if (!book) return { pausedUntilMs: null, pauseReason: null, windows: {} };
    return book.state(this.budget, this.limits);
  }

  url(request: UpstreamRequest): string {
    const url = new URL(this.baseUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async get(request: UpstreamRequest): Promise<UpstreamResponse> {
    return this.send(request, undefined);
  }

  /**
   * POST `body` as JSON (content-type application/json unless the request's headers say otherwise), with the
   * budget, retries, replay and observer of `get`. A POST answered 429 or 5xx is sent again like a GET: use it
   * only for requests that change nothing upstream (a search).
   */
  async postJson(request: UpstreamRequest, body: unknown): Promise<UpstreamResponse> {
    return this.send(request, { json: JSON.stringify(body), fields: bodyFields(body) });
  }

  private async send(
    request: UpstreamRequest,
    post: { json: string; fields: Record<string, string> } | undefined,
  ): Promise<UpstreamResponse> {
    const url = this.url(request);
    if (this.options.replay) return this.replayed(request, url, post?.fields);
    const headers: Record<string, string> = {
      "user-agent": this.options.userAgent,
      ...(post ? { "content-type": "application/json" } : {}),
      ...request.headers,
    };
    if (request.etag) headers["if-none-match"] = request.etag;
    if (request.lastModified) headers["if-modified-since"] = request.lastModified;
    const scale = this.options.backoffScale ?? 1;
    const first = this.spec.firstBackoffMs;
    let lastError: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.spec.retries; attempt++) {
      let waitMs =
        scale * Math.min(Math.max(30_000, first), first * 2 ** attempt) * (0.5 + Math.random() / 2);
      try {
        // The slot is held until the body is read, so the concurrency limit covers whole exchanges.
        const outcome = await this.withSlot(request, () => this.attempt(url, headers, post?.json));
        if ("response" in outcome) return outcome.response;
        lastError = outcome.error;
        if (this.throttles(outcome.error.status)) {
          request.onRefused?.(outcome.error.status ?? 0);
          // The pause is booked for every node; the next attempt's booking waits it out, or gives up.
          await this.pauseBudget(
            outcome.error.status ?? 0,
            outcome.retryAfterMs,
            url,
            attempt === this.spec.retries,
          );
          continue;
        }
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

  /** The status is one the throttle policy pauses the budget for. */
  private throttles(status: number | undefined): boolean {
    return this.throttle !== undefined && (this.throttle.statuses ?? [429]).includes(status ?? 0);
  }

  private async attempt(
    url: string,
    headers: Record<string, string>,
    json: string | undefined,
  ): Promise<{ response: UpstreamResponse } | { error: UpstreamError; retryAfterMs: number | undefined }> {
    const response = await this.observed(() =>
      (this.options.fetchImpl ?? fetch)(url, {
        ...(json === undefined ? {} : { method: "POST", body: json }),
        headers,
        signal: AbortSignal.timeout(this.spec.timeoutMs),
        redirect: "follow",
      }),
    );
    if (response.status === 429 || response.status >= 500 || this.throttles(response.status)) {
      await response.body?.cancel();
      return {
        error: new UpstreamError(
          this.name,
          `HTTP ${response.status} from ${json === undefined ? "" : "POST "}${url}`,
          response.status,
        ),
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

  /**
   * One exchange outside the budget, without retries: for a probe the upstream documents as free of its
   * quota (Overpass's /api/status). Any status is returned as it came.
   */
  async probe(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = this.url(request);
    if (this.options.replay) return this.replayed(request, url);
    const response = await this.observed(() =>
      (this.options.fetchImpl ?? fetch)(url, {
        headers: { "user-agent": this.options.userAgent, ...request.headers },
        signal: AbortSignal.timeout(Math.min(this.spec.timeoutMs, 10_000)),
      }),
    );
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      url,
      notModified: false,
      recordedSample: false,
    };
  }

  /**
   * A recorded answer (UPSTREAMS=replay), reported as an exchange so replay runs show in the metrics. A POST
   * matches a POST recording of its path whose `query` entries are among its query parameters and the top-level
   * scalar fields of its JSON body.
   */
  private async replayed(
    request: UpstreamRequest,
    url: string,
    postFields?: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const replay = this.options.replay as RecordingIndex;
    const response = postFields
      ? replay.answer(this.name, "POST", { ...request, query: { ...request.query, ...postFields } }, url)
      : replay.answer(this.name, "GET", request, url);
    this.options.observer?.(this.name, response.status, 0);
    return response;
  }

  private async observed(send: () => Promise<Response>): Promise<Response> {
    const observer = this.options.observer;
    if (!observer) return send();
    const started = performance.now();
    try {
      const response = await send();
      observer(this.name, response.status, performance.now() - started);
      return response;
    } catch (error) {
      observer(
        this.name,
        (error as Error)?.name === "TimeoutError" ? "timeout" : "network",
        performance.now() - started,
      );
      throw error;
    }
  }

  private async pauseBudget(
    status: number,
    retryAfter: number | undefined,
    url: string,
    lastAttempt: boolean,
  ): Promise<void> {
    const policy = this.throttle as ThrottlePolicy;
    let pauseMs = retryAfter;
    if (pauseMs === undefined && policy.probe) {
      try {
        pauseMs = await policy.probe(this);
      } catch {
        // The probe is advice; without it the default pause holds.
      }
    }
    pauseMs = Math.max(pauseMs ?? policy.defaultPauseMs, policy.minPauseMs ?? 0);
    const until = Date.now() + pauseMs;
    const reason = `HTTP ${status} from ${url}`;
    const book = this.options.budgets ?? this.options.localBudgets;
    try {
      await book?.pause(this.budget, until, reason);
    } catch {
      await this.options.localBudgets?.pause(this.budget, until, reason);
    }
    if (lastAttempt || pauseMs > this.spec.maxRetryAfterMs) {
      throw new UpstreamBudgetError(
        this.name,
        until,
        "paused",
        `refused with HTTP ${status}; every request to ${this.budget} pauses for ${Math.round(pauseMs / 1000)} s (${url})`,
        status,
      );
    }
  }

  private usesBudgetBook(): boolean {
    return this.limits !== undefined || this.throttle !== undefined;
  }

  /** Spacing, windows and pause through the budget book; refused when the start is too far away. */
  private async bookBudget(request: UpstreamRequest): Promise<number> {
    const booking = {
      budget: this.budget,
      intervalMs: this.spec.minIntervalMs,
      ...(this.limits ? { limits: this.limits } : {}),
      ...(request.background ? { background: { share: this.backgroundShare } } : {}),
      maxWaitMs: request.maxWaitMs ?? this.spec.maxRetryAfterMs,
    };
    let result: BookingResult | undefined;
    if (this.options.budgets) {
      try {
        result = await this.options.budgets.book(booking);
      } catch {
        // The store is unreachable: this process's own book still holds.
      }
    }
    result ??= await this.options.localBudgets?.book(booking);
    if (!result) return this.bookSpacing();
    if (result.booked) return result.startAt;
    const inSec = Math.ceil((result.availableAt - Date.now()) / 1000);
    const detail =
      result.reason === "paused"
        ? `requests to ${this.budget} are paused for another ${inSec} s (${result.pauseReason ?? "upstream refusal"})`
        : `the request budget of ${this.budget} is spent for another ${inSec} s`;
    throw new UpstreamBudgetError(this.name, result.availableAt, result.reason, detail);
  }

  private async bookStart(request: UpstreamRequest): Promise<number> {
    return this.usesBudgetBook() ? this.bookBudget(request) : this.bookSpacing();
  }

  private async bookSpacing(): Promise<number> {
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

  /**
   * One of the cluster's slots of this upstream, waited for (a slot's hold covers the budget wait, the timeout
   * and a margin, so a dead node's hold lapses). Undefined without a slot book, in replay, or when the store fails.
   */
  private async takeClusterSlot(request: UpstreamRequest): Promise<SlotHold | undefined> {
    const book = this.options.slots;
    if (!book || this.options.replay) return undefined;
    const holdMs = (request.maxWaitMs ?? this.spec.maxRetryAfterMs) + this.spec.timeoutMs + 5000;
    for (let wait = 10; ; wait = Math.min(500, wait * 2)) {
      let hold: SlotHold | undefined;
      try {
        hold = await book.take(this.name, this.spec.maxConcurrent, holdMs);
      } catch {
        return undefined;
      }
      if (hold) return hold;
      await sleep(wait);
    }
  }

  private async withSlot<T>(request: UpstreamRequest, run: () => Promise<T>): Promise<T> {
    while (this.active >= this.spec.maxConcurrent) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active++;
    let hold: SlotHold | undefined;
    try {
      hold = await this.takeClusterSlot(request);
      const startAt = await this.bookStart(request);
      const now = Date.now();
      if (startAt > now) await sleep(startAt - now);
      return await run();
    } finally {
      if (hold) await this.options.slots?.give(this.name, hold).catch(() => {});
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
