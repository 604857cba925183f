// A product's route, stage by stage: the unpaid checks (disabled family, unpaid-work gate, a recent 402, the
// parameters, the data checks) before any payment is asked, then the answer: free, free sample, 402, or paid.

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
import { errorResponse } from "../errors.ts";
import { isMcpCall } from "../mcp/call.ts";
import { notePrice } from "../observability/requests.ts";
import { jsonResponse, outcomeResponse } from "../responses.ts";
import { sha256 } from "../sha256.ts";
import { type ChallengeRequest, challengeResponse } from "../x402/seller/challenge.ts";
import type { Paywall } from "../x402/seller/paywall.ts";
import { clientKey, type SampleLimiter } from "../x402/seller/samples.ts";
import { decodePaymentSignature } from "../x402/shared/header-codec.ts";
import type { AppDeps } from "./app-deps.ts";
import { type DisabledInfo, notConfiguredResponse, withNotConfigured } from "./disabled-families.ts";
import type { RecentChallenges } from "./recent-challenges.ts";
import { BARE_REQUEST, type Validated, validateRequest } from "./validate-request.ts";

const REPLAY_NOTICE =
  "Recorded sample of the upstream's documented response (UPSTREAMS=replay); not live data.";

/** What a product's route is built from. */
export interface RouteSetup {
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

/** One request on the route: what its stages hand on. */
class RouteCall {
  readonly c: Context;
  /** The PAYMENT-SIGNATURE as sent. */
  readonly presented: string | undefined;
  /** The payment the route takes: none on a free route, which ignores one. */
  readonly paymentHeader: string | undefined;
  /** validate */
  url!: URL;
  parsed: ParsedRequest = BARE_REQUEST;
  refused: Validated["refused"];
  /** A bare request to a paid route: its 402 whatever its parameters' and data checks' verdict. */
  coldProbe = false;

  constructor(route: Route, c: Context) {
    this.c = c;
    this.presented = c.req.header("payment-signature");
    this.paymentHeader = isFree(route.product) ? undefined : this.presented;
  }
}

export function productRoute(setup: RouteSetup): (c: Context) => Promise<Response> {
  const { config } = setup.deps.ctx;
  const route: Route = {
    ...setup,
    replay: config.upstreams === "replay",
    freeSampleUrl: sampleUrl(config, setup.product),
    usage: usageCounter(setup.deps),
    expensive: setup.product.expensiveChallenge === true,
  };
  return (c) => answer(route, new RouteCall(route, c));
}

async function answer(route: Route, call: RouteCall): Promise<Response> {
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
  if (!call.paymentHeader) return challenge(route, call, paywall, request);
  return pay(route, call, paywall, request, call.paymentHeader);
}

/** A paid route of a disabled family. */
function refuseDisabled(route: Route): Response | undefined {
  return route.disabled && !isFree(route.product) ? notConfiguredResponse(route.disabled) : undefined;
}

/**
 * Unpaid work from a client over its limit is refused: a request without a payment, or with one the route does
 * not take (a free route) or that does not even decode.
 */
function gateUnpaid(route: Route, call: RouteCall): Promise<Response | undefined> | undefined {
  const { gate, expensive } = route;
  const { c, presented, paymentHeader } = call;
  if (!gate.enabled) return undefined;
  if (!presented) return gate.take(c, 1, expensive);
  if (!paymentHeader || (gate.over(c, expensive) && !decodes(paymentHeader))) {
    return gate.paymentUnused(c, expensive);
  }
  return undefined;
}

/** An unpaid GET of a URL that got its 402 seconds ago: that 402 again, without validating anything. */
function recentChallenge(route: Route, call: RouteCall): Response | undefined {
  if (call.paymentHeader || route.product.method !== "GET") return undefined;
  // A 402 kept from before the facilitators' offer changed is not answered again.
  const parts = route.recentChallenges.get(call.c.req.url, route.deps.paywall()?.offerChangedAt ?? 0);
  if (!parts) return undefined;
  route.usage.challenge(route.product.sku);
  return challengeResponse(parts);
}

/** The parameters: a 400 naming the one at fault, except for a cold probe. */
async function validate(route: Route, call: RouteCall): Promise<Response | undefined> {
  const { c } = call;
  call.url = new URL(c.req.url);
  const { parsed = BARE_REQUEST, refused, bare } = await validateRequest(route.product, call.url, c.req.raw);
  call.parsed = parsed;
  call.refused = refused;
  // A bare request to a paid route gets the route's 402 whatever its data checks say; its paid retry runs them
  // and answers their 4xx (never settled), as it answers the 400 of a request that needed parameters.
  call.coldProbe = bare && !isFree(route.product) && !isMcpCall(c.env);
  return refused && !call.coldProbe ? jsonResponse(refused.status, refused.body) : undefined;
}

/** The data checks (known values, the product's own check) before any payment; a cold probe's run after it. */
async function checkData(route: Route, call: RouteCall): Promise<Response | undefined> {
  if (call.coldProbe) return undefined;
  const problem = await dataProblem(route, call);
  return problem ? jsonResponse(problem.status, problem.body) : undefined;
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

async function answerFree(route: Route, call: RouteCall): Promise<Response> {
  return outcomeResponse(withNotConfigured(await runHandler(route, call), route.disabled));
}

/** The free sample, limited per client; asked with a payment, it is still a free sample (and unpaid work). */
async function answerSample(route: Route, call: RouteCall): Promise<Response> {
  const { product, deps, samples, gate, expensive } = route;
  const { config } = deps.ctx;
  if (call.paymentHeader) {
    const refused = await gate.paymentUnused(call.c, expensive);
    if (refused) return refused;
  }
  const taken = await samples.take(product.sku, clientKey(clientAddress(call.c, config)));
  if (!taken.allowed) {
    return errorResponse(
      "sample_limit",
      `The free sample is limited to ${config.samplesPerHour} requests an hour per client; buy the call or retry later.`,
      { retryAfterSec: taken.retryAfterSec },
      { "retry-after": String(taken.retryAfterSec) },
    );
  }
  const sample = await runHandler(route, call);
  if (sample.status === 200) route.usage.sample(product.sku);
  return outcomeResponse(sample);
}

function paymentsStarting(): Response {
  return errorResponse("payments_starting", undefined, {}, { "retry-after": "5" });
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
): Promise<Response> {
  const parts = await paywall.challengeParts(request);
  if (route.product.method === "GET") route.recentChallenges.keep(call.c.req.url, parts);
  route.usage.challenge(route.product.sku);
  return challengeResponse(parts);
}

/** A paid call. Paid calls are counted where they settle (the paywall's events). */
async function pay(
  route: Route,
  call: RouteCall,
  paywall: Paywall,
  request: ChallengeRequest,
  paymentHeader: string,
): Promise<Response> {
  const { product } = route;
  const { parsed } = call;
  const charged = await paywall.charge({
    ...request,
    paymentHeader,
    requestHash: sha256(canonicalRequest(product.method, product.path, parsed.params, parsed.input.body)),
    run: (payment) => runHandler(route, call, payment),
  });
  // A payment refused before settlement (a 402 without PAYMENT-RESPONSE) was unpaid work: it counts.
  if (charged.status === 402 && !charged.headers.has("payment-response")) {
    const refused = await route.gate.paymentUnused(call.c, route.expensive);
    if (refused) return refused;
  }
  return charged;
}

/** A PAYMENT-SIGNATURE that decodes at all: anything else is unpaid work like a request without one. */
function decodes(header: string): boolean {
  try {
    decodePaymentSignature(header);
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
