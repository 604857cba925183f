// One declaration per product: every surface (route, validation, 402, catalog, OpenAPI, Bazaar,
// well-known, sample) is derived from what is declared here.

import type { Migration } from "kysely/migration";
import type { z } from "zod";
import type { Config } from "../config.ts";
import { ERRORS, type ErrorOutcome, errorBody, errorOutcome } from "../errors.ts";
import type { SaleRepository } from "../store/sales.ts";
import type { HandlerContext, JobLane, ServiceContext } from "./family-context.ts";

export type { ErrorOutcome } from "../errors.ts";
export type { HandlerContext, JobLane } from "./family-context.ts";

type CatalogStatus = "live" | "live-hold" | "coming-soon" | "verify-free" | "inventory-ready";

export interface SourceInfo {
  name: string;
  url: string;
  licence: { name: string; url?: string; attribution?: string };
  notice?: string;
}

/** What a settled payment looked like, handed to a product that records something after settlement. */
export interface Settlement {
  network: string;
  payer: string | null;
  transaction: string | null;
  amount: string;
  /** The call's signed receipt (compact JWS, offer-receipt extension), when one was issued. */
  receipt?: string;
}

/**
 * What one call of a product billed by use consumed: the amount to settle under the `upto` scheme (atomic USDC
 * units, at most the price the 402 asked) and the counts it was computed from (signed into the receipt).
 */
export interface MeteredUse {
  amount: string;
  counts: Record<string, number>;
}

/**
 * What the paid path hands a product's after-settlement step: the records that only a settled payment may
 * write (the domain sale). They stay on the paid path's side: no family context reaches them.
 */
interface SettledRecords {
  sales: Pick<SaleRepository, "record">;
}

/** A product's own step once its answer is paid. */
type AfterSettlement = (settlement: Settlement, records: SettledRecords) => Promise<void>;

export type Outcome<A> =
  | { status: 200; body: A; onSettled?: AfterSettlement; used?: MeteredUse }
  | ErrorOutcome;

export function ok<A>(body: A, onSettled?: AfterSettlement): Outcome<A> {
  return onSettled ? { status: 200, body, onSettled } : { status: 200, body };
}

export function badRequest(
  parameter: string,
  message: string,
  extra: Record<string, unknown> = {},
): ErrorOutcome {
  const { error, ...rest } = errorBody("invalid_parameter", message, extra);
  // The parameter stands right after the code, as in every 400 this service has answered.
  return { status: ERRORS.invalid_parameter.status, body: { error, parameter, ...rest } };
}

export function notFound(message: string, extra: Record<string, unknown> = {}): ErrorOutcome {
  return errorOutcome("not_found", message, extra);
}

/** The item is not cached yet; it has been queued and can be bought again after retryAfterSec. */
export function notCached(
  message: string,
  retryAfterSec: number,
  extra: Record<string, unknown> = {},
): ErrorOutcome {
  return errorOutcome("not_cached", message, { retryAfterSec, ...extra });
}

/**
 * What cannot serve in this configuration (live mode without a setting it needs): a 503 before any payment, one
 * body for a disabled family's routes (src/http/disabled-families.ts) and for one route of a family that
 * otherwise serves.
 * `subject` names it with its verb: "The gov-companies products are", "The UK company register is".
 */
export function notConfigured(
  subject: string,
  family: string,
  problem: Pick<FamilyUnavailable, "reason" | "fix" | "docs">,
): ErrorOutcome {
  return errorOutcome(
    "not_configured",
    `${subject} disabled on this server: ${problem.reason} Nothing was charged.`,
    {
      family,
      reason: problem.reason,
      fix: problem.fix,
      ...(problem.docs ? { docs: problem.docs } : {}),
    },
  );
}

/** The upstream did not answer and nothing is cached to serve; `extra` says when to retry (retryAfterSec). */
export function upstreamUnavailable(message: string, extra: Record<string, unknown> = {}): ErrorOutcome {
  return errorOutcome("upstream_unavailable", message, extra);
}

/** Who is paying for this call: known after the facilitator verified the payment, before the handler runs. */
export interface PaymentContext {
  payer: string | null;
  network: string;
  /** The x402 scheme paid with: "exact" (the price asked) or "upto" (at most it; the answer's `used` is settled). */
  scheme?: string;
}

export interface RequestInput<Q, B> {
  query: Q;
  body: B;
  /** Set on paid calls only (never on free endpoints or free samples). */
  payment?: PaymentContext;
}

/** A fixed price in USD ("0.005"; "0" for free endpoints) or a price computed from the validated request. */
type PriceRule<Q, B> =
  | string
  | {
      dynamic: (input: RequestInput<Q, B>) => string;
      minUsd: string;
      /** The most any valid request can cost: agents budget against it before calling. */
      maxUsd: string;
      formula: string;
      /**
       * Also sold by use (the `upto` scheme, where the facilitator settles it): the computed price is the most
       * a call can cost, and what a paid answer's `used` says is settled.
       */
      billedByUse?: boolean;
    };

/** The values a filter can match, read from the data; `fold` compares them as the handler does. */
interface ValueSet {
  values: (ctx: HandlerContext) => Promise<Iterable<string>>;
  fold?: (value: string) => string;
  /** How a buyer learns the values ("see /v1/ski/inventory"). */
  hint?: string;
}

export interface ProductSpec<Q, B, A> {
  sku: string;
  method: "GET" | "POST";
  path: string;
  summary: string;
  description: string;
  status: CatalogStatus;
  tags?: string[];
  price: PriceRule<Q, B>;
  /** Query parameters, as strings from the URL; coerce inside the schema. */
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Alternative parameter names: `{ currency: "pair" }`. */
  aliases?: Record<string, string>;
  answer: z.ZodType<A>;
  /** The one free request (query parameters as they appear in the URL). */
  sample?: Record<string, string>;
  /** A valid request for documentation and tests, where the product has no free sample. */
  example?: Record<string, string>;
  /** A body a buyer could send, for the Bazaar and OpenAPI examples of POST products. */
  exampleBody?: B;
  source?: SourceInfo;
  /**
   * Answering this route's 402 costs real work (the chat route counts the prompt's tokens to price it): its
   * unpaid requests are also held to RATE_LIMIT_EXPENSIVE_PER_MIN (src/abuse/).
   */
  expensiveChallenge?: boolean;
  /**
   * Filters whose values come from a known set (the regions on file): each parameter's accepted values, read
   * from the data, and checked before payment (src/catalog/value-sets.ts), so a value that can never match is
   * a 400 naming it instead of a paid empty answer.
   */
  valueSets?: Record<string, ValueSet>;
  /** Checks the validated input against data before payment is requested (a 400 here is never charged). */
  check?: (input: RequestInput<Q, B>, ctx: HandlerContext) => Promise<ErrorOutcome | undefined>;
  handle: (input: RequestInput<Q, B>, ctx: HandlerContext) => Promise<Outcome<A>>;
}

// biome-ignore lint/suspicious/noExplicitAny: the product list holds products of every input and answer type
export type AnyProduct = ProductSpec<any, any, any>;

export function product<Q = Record<string, never>, B = undefined, A = unknown>(
  spec: ProductSpec<Q, B, A>,
): ProductSpec<Q, B, A> {
  if (!/^\/v1\//.test(spec.path)) throw new Error(`${spec.sku}: paths start with /v1/`);
  return spec;
}

export function isFree(spec: AnyProduct): boolean {
  return typeof spec.price === "string" && Number(spec.price) === 0;
}

export interface Warmer {
  /** Unique name, shown in status endpoints. */
  name: string;
  /** How often it should run, in milliseconds; it also runs at start when its last success is older. */
  everyMs: number;
  /**
   * For upstreams that publish on a calendar: when the warmer is next due, given its last success (null: never).
   * Replaces the `everyMs` rule for scheduling; `everyMs` still tells status endpoints the expected period.
   */
  nextRunAt?: (lastSuccess: Date | null) => Date;
  /** "bulk" for a warmer that imports a whole dataset (hours of work): it runs in the bulk lane. Default "warm". */
  lane?: Extract<JobLane, "warm" | "bulk">;
  /** Overrides the lane's time limit (src/jobs/lanes.ts). */
  timeLimitMs?: number;
  run: (ctx: HandlerContext, job?: JobRun) => Promise<Record<string, unknown>>;
}

/**
 * A long-running task of a family (a stream collector), started with the worker and stopped before it;
 * on several nodes every worker starts it, so it elects its own leader through `store.leases`.
 */
export interface BackgroundTask {
  name: string;
  start: (ctx: HandlerContext) => { stop: () => Promise<void> };
}

/** What a running job is told: its time limit, and a signal aborted when it is reached or the job is lost. */
export interface JobRun {
  timeLimitMs: number;
  signal: AbortSignal;
}

/** Every job's time limit unless its kind sets one: a fetch is one item, a warmer one refresh, bulk an import. */
export const LANE_TIME_LIMIT_MS: Record<JobLane, number> = {
  fetch: 2 * 60_000,
  warm: 30 * 60_000,
  bulk: 2 * 3600_000,
};

/** Where a job kind differs from its lane's defaults (src/jobs/lanes.ts). */
interface JobKindOptions {
  /** Default "fetch": the queues of families mostly fetch an item a buyer asked for. */
  lane?: JobLane;
  timeLimitMs?: number;
  /** The first retry's delay after a failure, doubled on each attempt. */
  retryBackoffMs?: number;
}

/** Runs one job; a plain function is a "fetch" lane job, `jobKind` declares another lane or limits. */
export type JobHandler = ((payload: unknown, ctx: HandlerContext, job?: JobRun) => Promise<void>) &
  JobKindOptions;

/** A job handler carrying its lane, time limit or back-off. */
export function jobKind(options: JobKindOptions, run: JobHandler): JobHandler {
  return Object.assign(run, options);
}

/**
 * Why a family cannot serve in this configuration (live mode without a setting it needs) and what the operator
 * must do. A family with this set starts disabled: its paid routes answer 503 `not_configured` before any
 * payment is asked, its free routes answer and say why, the worker runs none of its warmers, jobs or tasks.
 */
export interface FamilyUnavailable {
  reason: string;
  fix: string;
  /** Where the operator reads more (terms, key sign-up). */
  docs?: string;
  /** Off until the operator opts in (a licence flag): the preflight warns instead of blocking. */
  optIn?: boolean;
}

/** Replay mode never disables a family: recordings need no contact, key or permission. */
export function unavailableWhenLive(
  config: Pick<Config, "upstreams">,
  problem: FamilyUnavailable | undefined,
): FamilyUnavailable | undefined {
  return config.upstreams === "live" ? problem : undefined;
}

export type PreflightState = "ok" | "warn" | "blocker";

export interface PreflightVerdict {
  state: PreflightState;
  /** What was found (status, answer, error). */
  detail: string;
  /** What the operator should change, when the state is not ok. */
  fix?: string;
}

/** What a preflight check may use: the configuration and the User-Agent the service would send. */
export interface PreflightContext {
  config: Config;
  userAgent: string;
  /** Every check's request gives up after this long. */
  timeoutMs: number;
  fetchImpl?: typeof fetch;
}

/** One check `npm run preflight` runs for a family: a setting, or one cheap request to one upstream. */
export interface PreflightCheck {
  /** The upstream (or "configuration") the row of the preflight table names. */
  upstream: string;
  run: (ctx: PreflightContext) => Promise<PreflightVerdict>;
}

export interface Family {
  name: string;
  /** Set when live mode lacks something this family needs (computed by the factory from its settings). */
  unavailable?: FamilyUnavailable;
  /** The checks `npm run preflight` runs before going live: configuration warnings and upstream probes. */
  preflight?: PreflightCheck[];
  products: AnyProduct[];
  warmers?: Warmer[];
  /**
   * Queue name → handler (a "fetch" lane job unless `jobKind` says otherwise); jobs are enqueued through
   * `ctx.store.jobs.enqueue(queue, key, payload)`, and a warmer queuing work into a fetch queue passes
   * `{ lane: "warm" }`.
   */
  jobs?: Record<string, JobHandler>;
  background?: BackgroundTask[];
  /** Folder of this family's upstream recordings, served by UPSTREAMS=replay. */
  recordingsDir?: string;
  /**
   * This family's own tables. Names sort after the core's and carry the family: "0100_nvd_cves". Written with
   * Kysely's schema builder so they run on SQLite and PostgreSQL alike.
   */
  migrations?: Record<string, Migration>;
  /**
   * Service features only (src/features/): handed the service's whole context once it is open, for what a
   * feature of the service itself needs (the receipt key). A product family never declares it (test/layers.test.ts).
   */
  attach?: (service: ServiceContext) => void;
}

export type FamilyFactory = (config: Config) => Family;
