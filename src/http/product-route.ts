// A product's route, stage by stage: the unpaid checks (disabled family, unpaid-work gate, a recent 402, the
// parameters, the data checks) before any payment is asked, then the answer: free, free sample, 402, or paid.
// The stages end with a call's outcome (x402/seller/paid-call/outcome.ts), rendered by the transport that
// carried the call: the HTTP route here (render.ts), an MCP tool call (mcp/call.ts) through `call`.

import type { Context } from "hono";
import { clientAddress } from "../abuse/client-address.ts";
import type { UnpaidGate } from "../abuse/unpaid-gate.ts";
import { type ProductDescription, sampleUrl } from "../catalog/describe.ts";
import { bazaarExtension } from "../catalog/documents.ts";
import { familyContext } from "../catalog/family-context.ts";
import { canonicalRequest, isSampleRequest, type ParsedRequest } from "../catalog/input.ts";
import {
  type AnyProduct,
  type ErrorOutcome,
  isFree,
  type Outcome,
  type PaymentContext,
} from "../catalog/product.ts";
import { checkValueSets } from "../catalog/value-sets.ts";
import { notePaidAnswer, notePrice } from "../observability/requests.ts";
import { sha256 } from "../sha256.ts";
import type { ChallengeRequest } from "../x402/seller/challenge.ts";
import type { PresentedPayment } from "../x402/seller/paid-call/call.ts";
import {
  errorRefusal,
  handlerOutcome,
  type PaidOutcome,
  type PaymentRequiredOutcome,
  refusal,
  refusalOf,
} from "../x402/seller/paid-call/outcome.ts";
import type { Paywall } from "../x402/seller/paywall.ts";
import { clientKey, type SampleLimiter } from "../x402/seller/samples.ts";
import { decodePaymentSignature } from "../x402/shared/header-codec.ts";
import type { AppDeps } from "./app-deps.ts";
import { type DisabledInfo, notConfiguredOutcome, withNotConfigured } from "./disabled-families.ts";
import type { RecentChallenges } from "./recent-challenges.ts";
import { httpResponse } from "./render.ts";
import { BARE_REQUEST, type Validated, validateRequest } from "./validate-request.ts";

const REPLAY_NOTICE =
  "Recorded sample of the upstream's documented response (UPSTREAMS=replay); not live data.";

/** What a product's route is built from. */
interface RouteSetup {
  deps: AppDeps;
  product: AnyProduct;
  describe: (product: AnyProduct) => ProductDescription;
  samples: SampleLimiter;
  recentChallenges: RecentChallenges;
  disabled: DisabledInfo | undefined;
  gate: UnpaidGate;
}

/** A product's route, as kept between its requests. */
interface Route extends RouteSetup {
  replay: boolean;
  freeSampleUrl: string | undefined;
  usage: ReturnType<typeof usageCounter>;
  expensive: boolean;
  /** The Bazaar declaration (the route's schemas), made by its first paid request, then kept. */
  extensions?: Record<string, unknown>;
}

/** One call of the route as its transport hands it over. */
export interface RouteInput {
  /** The request that carried the call: its client (free-sample limit, unpaid gate) and its request log. */
  c: Context;
  /** The product's URL with the call's query. */
  url: string;
  /** What a POST's body is read from (none: empty). */
  body: Request | undefined;
  payment: PresentedPayment | undefined;
  /**
   * A bare request gets the route's 402 (an indexer's or agent's probe). A tool call does not: its schema is
   * in tools/list, so its missing parameters are named.
   */
  coldProbes: boolean;
}

/** A product's route: its HTTP handler, and the same stages for a call another transport carries. */
export interface ProductRoute {
  http: (c: Context) => Promise<Response>;
  call: (input: RouteInput) => Promise<PaidOutcome>;
}

/** One request on the route: what its stages hand on. */
class RouteCall {
  readonly c: Context;
  readonly input: RouteInput;
  /** The payment as sent. */
  readonly presented: PresentedPayment | undefined;
  /** The payment the route takes: none on a free route, which ignores one. */
  readonly payment: PresentedPayment | undefined;
  /** validate */
  url!: URL;
  parsed: ParsedRequest = BARE_REQUEST;
  refused: Validated["refused"];
  /** A bare request to a paid route: its 402 whatever its parameters' and data checks' verdict. */
  coldProbe = false;

  constructor(route: Route, input: RouteInput) {
    this.c = input.c;
    this.input = input;
    this.presented = input.payment;
    this.payment = isFree(route.product) ? undefined : this.presented;
  }
}

/** An HTTP request as the route's input: its URL, its body, its PAYMENT-SIGNATURE. */
function httpInput(c: Context): RouteInput {
  const header = c.req.header("payment-signature");
  return {
    c,
    url: c.req.url,
    body: c.req.raw,
    // An empty PAYMENT-SIGNATURE is no payment.
    payment: header ? { header } : undefined,
    coldProbes: true,
  };
}

export function productRoute(setup: RouteSetup): ProductRoute {
  const { config } = setup.deps.ctx;
  const route: Route = {
    ...setup,
    replay: config.upstreams === "replay",
    freeSampleUrl: sampleUrl(config, setup.product),
    usage: usageCounter(setup.deps),
    expensive: setup.product.expensiveChallenge === true,
  };
  const call = (input: RouteInput) => answer(route, new RouteCall(route, input));
  const http = async (c: Context) => {
    const outcome = await call(httpInput(c));
    if (outcome.kind === "answer" && outcome.paymentResponse !== undefined) {
      notePaidAnswer(c, { paymentResponse: outcome.paymentResponse, settlement: outcome.settlement });
    }
    return httpResponse(outcome);
  };
  return { http, call };
}

async function answer(route: Route, call: RouteCall): Promise<PaidOutcome> {
  const early = refuseDisabled(route) ?? (await gateUnpaid(route, call)) ?? recentChallenge(route, call);
  if (early) return early;
  const invalid = (await validate(route, call)) ?? (await checkData(route, call));
  if (invalid) return invalid;
  if (isFree(route.product)) return answerFree(route, call);
  if (call.parsed.sampleRequested && isSampleRequest(route.product, call.parsed.params)) {
    return answerSample(route, call);
  }
  const paywall = route.deps.paywall();
  if (!paywall) return paymentsStarting();
  const request = challengeRequest(route, call, paywall);
  if (!call.payment) return challenge(route, call, paywall, request);
  return pay(route, call, paywall, request, call.payment);
}

/** A paid route of a disabled family. */
function refuseDisabled(route: Route): PaidOutcome | undefined {
  return route.disabled && !isFree(route.product) ? notConfiguredOutcome(route.disabled) : undefined;
}

/**
 * Unpaid work from a client over its limit is refused: a request without a payment, or with one the route does
 * not take (a free route) or that does not even decode.
 */
async function gateUnpaid(route: Route, call: RouteCall): Promise<PaidOutcome | undefined> {
  const { gate, expensive } = route;
  const { c, presented, payment } = call;
  if (!gate.enabled) return undefined;
  if (!presented) return gateRefusal(gate.take(c, 1, expensive));
  if (!payment || (gate.over(c, expensive) && !decodes(payment))) {
    return gateRefusal(gate.paymentUnused(c, expensive));
  }
  return undefined;
}

/** The unpaid gate's 429, when it refuses. */
async function gateRefusal(answer: Promise<Response | undefined>): Promise<PaidOutcome | undefined> {
  const response = await answer;
  return response ? refusalOf(response) : undefined;
}

/** An unpaid GET of a URL that got its 402 seconds ago: that 402 again, without validating anything. */
function recentChallenge(route: Route, call: RouteCall): PaymentRequiredOutcome | undefined {
  if (call.payment || route.product.method !== "GET") return undefined;
  // A 402 kept from before the facilitators' offer changed is not answered again.
  const parts = route.recentChallenges.get(call.input.url, route.deps.paywall()?.offerChangedAt ?? 0);
  if (!parts) return undefined;
  route.usage.challenge(route.product.sku);
  return { kind: "payment-required", challenge: parts };
}

/** The parameters: a 400 naming the one at fault, except for a cold probe. */
async function validate(route: Route, call: RouteCall): Promise<PaidOutcome | undefined> {
  const { input } = call;
  call.url = new URL(input.url);
  const { parsed = BARE_REQUEST, refused, bare } = await validateRequest(route.product, call.url, input.body);
  call.parsed = parsed;
  call.refused = refused;
  // A bare request to a paid route gets the route's 402 whatever its data checks say; its paid retry runs them
  // and answers their 4xx (never settled), as it answers the 400 of a request that needed parameters.
  call.coldProbe = bare && !isFree(route.product) && input.coldProbes;
  return refused && !call.coldProbe ? refusal(refused.status, refused.body) : undefined;
}

/** The data checks (known values, the product's own check) before any payment; a cold probe's run after it. */
async function checkData(route: Route, call: RouteCall): Promise<PaidOutcome | undefined> {
  if (call.coldProbe) return undefined;
  const problem = await dataProblem(route, call);
  return problem ? refusal(problem.status, problem.body) : undefined;
}

async function dataProblem(route: Route, call: RouteCall): Promise<ErrorOutcome | undefined> {
  if (call.refused) return undefined;
  const { product, deps } = route;
  const unknown = product.valueSets
    ? await checkValueSets(product, call.parsed.params, familyContext(deps.ctx))
    : undefined;
  return unknown ?? (product.check ? product.check(call.parsed.input, familyContext(deps.ctx)) : undefined);
}

/** The product's answer (a cold probe's parameters and data checked first), marked when it is a recording. */
async function runHandler(
  route: Route,
  call: RouteCall,
  payment?: PaymentContext,
): Promise<Outcome<unknown>> {
  if (call.refused) return call.refused as Outcome<unknown>;
  const problem = call.coldProbe ? await dataProblem(route, call) : undefined;
  if (problem) return problem;
  const { input } = call.parsed;
  const outcome = await route.product.handle(
    payment ? { ...input, payment } : input,
    familyContext(route.deps.ctx),
  );
  return finalise(outcome, route.replay);
}

async function answerFree(route: Route, call: RouteCall): Promise<PaidOutcome> {
  return handlerOutcome(withNotConfigured(await runHandler(route, call), route.disabled));
}

/** The free sample, limited per client; asked with a payment, it is still a free sample (and unpaid work). */
async function answerSample(route: Route, call: RouteCall): Promise<PaidOutcome> {
  const { product, deps, samples, gate, expensive } = route;
  const { config } = deps.ctx;
  if (call.payment) {
    const overLimit = await gateRefusal(gate.paymentUnused(call.c, expensive));
    if (overLimit) return overLimit;
  }
  const taken = await samples.take(product.sku, clientKey(clientAddress(call.c, config)));
  if (!taken.allowed) {
    return errorRefusal(
      "sample_limit",
      `The free sample is limited to ${config.samplesPerHour} requests an hour per client; buy the call or retry later.`,
      { retryAfterSec: taken.retryAfterSec },
      { "retry-after": String(taken.retryAfterSec) },
    );
  }
  const sample = await runHandler(route, call);
  if (sample.status === 200) route.usage.sample(product.sku);
  return handlerOutcome(sample);
}

function paymentsStarting(): PaidOutcome {
  return errorRefusal("payments_starting", undefined, {}, { "retry-after": "5" });
}

/** What the 402 and the paid call name: the product, this request's price and URL, the route's extensions. */
function challengeRequest(route: Route, call: RouteCall, paywall: Paywall): ChallengeRequest {
  const { product, deps, freeSampleUrl } = route;
  route.extensions ??= paywall.enrich(
    isFree(product) ? {} : bazaarExtension(route.describe(product)),
    product.method,
    product.path,
  );
  const request = {
    product,
    priceUsd: call.refused ? minimumPrice(product) : priceOf(product, call.parsed.input),
    resourceUrl: `${deps.ctx.config.publicUrl}${call.url.pathname}${call.url.search}`,
    ...(freeSampleUrl ? { freeSampleUrl } : {}),
    extensions: route.extensions,
  };
  if (typeof product.price !== "string") notePrice(call.c, request.priceUsd);
  return request;
}

/** The route's 402, kept a few seconds for the same GET URL. */
async function challenge(
  route: Route,
  call: RouteCall,
  paywall: Paywall,
  request: ChallengeRequest,
): Promise<PaidOutcome> {
  const parts = await paywall.challengeParts(request);
  if (route.product.method === "GET") route.recentChallenges.keep(call.input.url, parts);
  route.usage.challenge(route.product.sku);
  return { kind: "payment-required", challenge: parts };
}

/** A paid call. Paid calls are counted where they settle (the paywall's events). */
async function pay(
  route: Route,
  call: RouteCall,
  paywall: Paywall,
  request: ChallengeRequest,
  payment: PresentedPayment,
): Promise<PaidOutcome> {
  const { product } = route;
  const { parsed } = call;
  const charged = await paywall.charge({
    ...request,
    payment,
    requestHash: sha256(canonicalRequest(product.method, product.path, parsed.params, parsed.input.body)),
    run: (payment) => runHandler(route, call, payment),
  });
  // A payment refused before settlement (a 402 without PAYMENT-RESPONSE) was unpaid work: it counts.
  if (charged.kind === "payment-required") {
    const overLimit = await gateRefusal(route.gate.paymentUnused(call.c, route.expensive));
    if (overLimit) return overLimit;
  }
  return charged;
}

/** A PAYMENT-SIGNATURE that decodes at all (a payment given as a value does): anything else is unpaid work. */
function decodes(payment: PresentedPayment): boolean {
  if (!("header" in payment)) return true;
  try {
    decodePaymentSignature(payment.header);
    return true;
  } catch {
    return false;
  }
}

/** Marks answers served from recordings, so a recorded sample is never mistaken for live data. */
function finalise(outcome: Outcome<unknown>, replay: boolean): Outcome<unknown> {
  const body = outcome.body;
  if (!replay || outcome.status !== 200 || !body || typeof body !== "object" || Array.isArray(body))
    return outcome;
  const notice = (body as { notice?: unknown }).notice;
  if (typeof notice === "string" && notice.includes("UPSTREAMS=replay")) return outcome;
  return {
    ...outcome,
    body: { ...body, notice: typeof notice === "string" ? `${REPLAY_NOTICE} ${notice}` : REPLAY_NOTICE },
  };
}

function priceOf(product: AnyProduct, input: { query: unknown; body: unknown }): string {
  return typeof product.price === "string" ? product.price : product.price.dynamic(input);
}

/** The price an indexer's probe is quoted: the fixed price, or the least a dynamic price can be. */
function minimumPrice(product: AnyProduct): string {
  return typeof product.price === "string" ? product.price : product.price.minUsd;
}

/** 402s and free samples, counted for the operator view (daily, in the store) and the metrics. */
function usageCounter(deps: AppDeps) {
  const { dailyCounts } = deps.ctx.store;
  const metrics = deps.observability?.metrics;
  return {
    challenge(sku: string): void {
      dailyCounts.count(sku, "challenge");
      metrics?.challenge(sku);
    },
    sample(sku: string): void {
      dailyCounts.count(sku, "sample");
      metrics?.freeSample(sku);
    },
  };
}
