// Builds the HTTP app from the product list: every route, document and check is derived from it.
import { type Context, Hono } from "hono";
import { limitBodies } from "./abuse/body-limit.ts";
import { clientAddress } from "./abuse/client-address.ts";
import type { RateLimiter } from "./abuse/rate-limiter.ts";
import { UnpaidGate } from "./abuse/unpaid-gate.ts";
import { adminRoutes } from "./admin/routes.ts";
import { SignInLimiter } from "./admin/sign-in-limit.ts";
import { describeProduct, type ProductDescription, sampleUrl } from "./catalog/describe.ts";
import { bazaarExtension, buildCatalog, buildTerms, buildWellKnown } from "./catalog/documents.ts";
import { FAVICON_PATHS, FAVICON_SVG, SVG_HEADERS, TEXT_HEADERS } from "./catalog/favicon.ts";
import { agentGuidance } from "./catalog/guidance.ts";
import {
  canonicalRequest,
  DEFAULT_MAX_BODY_BYTES,
  isSampleRequest,
  malformedEscape,
  type ParsedRequest,
  parseBody,
  parseQuery,
} from "./catalog/input.ts";
import { buildOpenApi, sectionOf } from "./catalog/openapi.ts";
import {
  type AnyProduct,
  type Family,
  type FamilyUnavailable,
  type HandlerContext,
  isFree,
  notConfigured,
  type Outcome,
  type PaymentContext,
} from "./catalog/product.ts";
import { checkValueSets } from "./catalog/value-sets.ts";
import { isMcpCall } from "./mcp/call.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import type { Observability } from "./observability/index.ts";
import { metricsRoute } from "./observability/metrics-server.ts";
import { notePrice, observeRequests, routeProducts } from "./observability/requests.ts";
import { JSON_HEADERS, jsonResponse, outcomeResponse, PREFLIGHT_HEADERS } from "./responses.ts";
import { sha256 } from "./sha256.ts";
import { type ChallengeParts, challengeResponse } from "./x402/seller/challenge.ts";
import type { Paywall } from "./x402/seller/paywall.ts";
import { didDocumentRoutes } from "./x402/seller/receipts/did-document.ts";
import { clientKey, SampleLimiter } from "./x402/seller/samples.ts";
import { decodePaymentSignature } from "./x402/shared/header-codec.ts";

export interface AppDeps {
  ctx: HandlerContext;
  products: AnyProduct[];
  /** Set once the resource server has synced with the facilitator; paid routes answer 503 until then. */
  paywall: () => Paywall | undefined;
  /** The embedded local facilitator's routes, mounted at /local-facilitator when it is in use. */
  localFacilitator?: Hono;
  /** True from the moment a shutdown starts: /ready answers 503 so that load balancers stop sending. */
  draining: () => boolean;
  /** Families that declared themselves unavailable in this configuration (see `Family.unavailable`). */
  disabledFamilies?: Family[];
  /** Every served family (the operator view reads their warmers' periods). */
  families?: Family[];
  /** Request ids, the request log and, when someone can scrape them, metrics. */
  observability?: Observability;
  /** Per-client limits on unpaid requests, cluster-wide. */
  rateLimits?: RateLimiter;
}

type DisabledInfo = FamilyUnavailable & { family: string };

function disabledBySku(families: Family[] = []): Map<string, DisabledInfo> {
  const bySku = new Map<string, DisabledInfo>();
  for (const family of families) {
    if (!family.unavailable) continue;
    for (const p of family.products) bySku.set(p.sku, { family: family.name, ...family.unavailable });
  }
  return bySku;
}

/** A paid route of a disabled family: refused before any payment is asked, since it cannot deliver. */
function notConfiguredResponse(disabled: DisabledInfo): Response {
  return outcomeResponse(notConfigured(`The ${disabled.family} products are`, disabled.family, disabled));
}

/** A free route of a disabled family still answers, and says why the family is off. */
function withNotConfigured(outcome: Outcome<unknown>, disabled: DisabledInfo | undefined): Outcome<unknown> {
  const body = outcome.body;
  if (!disabled || !body || typeof body !== "object" || Array.isArray(body)) return outcome;
  const { family, reason, fix, docs } = disabled;
  return {
    ...outcome,
    body: { ...body, notConfigured: { family, reason, fix, ...(docs ? { docs } : {}) } },
  } as Outcome<unknown>;
}

const RECENT_CHALLENGE_MS = 10_000;
/**
 * Few entries: each holds a 402 of about 6 KB, and with every URL new (crawlers, distinct queries) a larger map
 * only keeps more of them alive into the old generation (2,048 entries cost the 402 path 4 % of its CPU in GC).
 */
const RECENT_CHALLENGE_LIMIT = 256;
const REPLAY_NOTICE =
  "Recorded sample of the upstream's documented response (UPSTREAMS=replay); not live data.";

/** The body cap of every route: a product's body, or an MCP message with its envelope and a payment payload. */
const MCP_MAX_BODY_BYTES = 2 * DEFAULT_MAX_BODY_BYTES;
const bodyCap = (path: string) =>
  path === "/mcp" || path.startsWith("/mcp/") ? MCP_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES;

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

/** What a bare request stands for when its parameters do not validate (its paid retry answers the 400). */
const BARE_REQUEST: ParsedRequest = {
  input: { query: {}, body: undefined },
  sampleRequested: false,
  params: {},
};

interface Validated {
  /** The request's parameters, when they are valid. */
  parsed?: ParsedRequest;
  /** The 400 (413) naming the parameter at fault, when they are not. */
  refused?: { status: number; body: Record<string, unknown> };
  /**
   * No parameters at all (GET with an empty query; POST with no body or `{}`): an indexer's or agent's probe,
   * answered on a paid route with its 402 so that it learns the price and how to call.
   */
  bare: boolean;
}

async function validateRequest(product: AnyProduct, url: URL, request: Request): Promise<Validated> {
  const emptyQuery = url.search === "" || url.search === "?";
  // URLSearchParams decodes a malformed percent-escape silently: the raw query is checked first.
  const escapes = malformedEscape(url.search);
  if (escapes) return { refused: escapes, bare: false };
  const parsed = parseQuery(product, url.searchParams);
  if (product.method !== "POST") {
    return parsed.ok
      ? { parsed: parsed.value, bare: emptyQuery }
      : { refused: parsed.error, bare: emptyQuery };
  }
  if (!parsed.ok) return { refused: parsed.error, bare: false };
  const body = await parseBody(product, request);
  const bare = emptyQuery && "emptyBody" in body && body.emptyBody === true;
  if (!body.ok) return { refused: body.error, bare };
  parsed.value.input.body = "body" in body ? body.body : undefined;
  return { parsed: parsed.value, bare };
}

/**
 * Unpaid GETs repeat: the 402 a URL got is answered again for a few seconds without re-validating it
 * (validation and price depend only on the URL; data checks are themselves cached that long).
 */
type RecentChallenges = Map<string, { at: number; parts: ChallengeParts }>;

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

function productRoute(
  deps: AppDeps,
  product: AnyProduct,
  describe: (product: AnyProduct) => ProductDescription,
  samples: SampleLimiter,
  recentChallenges: RecentChallenges,
  disabled: DisabledInfo | undefined,
  gate: UnpaidGate,
) {
  const { config } = deps.ctx;
  const replay = config.upstreams === "replay";
  const freeSampleUrl = sampleUrl(config, product);
  let enrichedExtensions: Record<string, unknown> | undefined;
  const usage = usageCounter(deps);
  const expensive = product.expensiveChallenge === true;

  return async (c: Context): Promise<Response> => {
    if (disabled && !isFree(product)) return notConfiguredResponse(disabled);
    const presented = c.req.header("payment-signature");
    // A free route ignores a payment; one that does not even decode, from a client over its limit, is unpaid.
    const paymentHeader = isFree(product) ? undefined : presented;
    if (gate.enabled) {
      const refused = !presented
        ? await gate.take(c, 1, expensive)
        : !paymentHeader || (gate.over(c, expensive) && !decodes(paymentHeader))
          ? await gate.paymentUnused(c, expensive)
          : undefined;
      if (refused) return refused;
    }
    if (!paymentHeader && product.method === "GET") {
      const recent = recentChallenges.get(c.req.url);
      if (recent && Date.now() - recent.at < RECENT_CHALLENGE_MS) {
        usage.challenge(product.sku);
        return challengeResponse(recent.parts);
      }
    }
    const url = new URL(c.req.url);
    const { parsed = BARE_REQUEST, refused, bare } = await validateRequest(product, url, c.req.raw);
    // A bare request to a paid route gets the route's 402 whatever its data checks say; its paid retry runs them
    // and answers their 4xx (never settled), as it answers the 400 of a request that needed parameters.
    const coldProbe = bare && !isFree(product) && !isMcpCall(c.env);
    if (refused && !coldProbe) return jsonResponse(refused.status, refused.body);
    const input = parsed.input;
    const check = async () => {
      if (refused) return undefined;
      const unknown = product.valueSets ? await checkValueSets(product, parsed.params, deps.ctx) : undefined;
      return unknown ?? (product.check ? product.check(input, deps.ctx) : undefined);
    };
    if (!coldProbe) {
      const problem = await check();
      if (problem) return jsonResponse(problem.status, problem.body);
    }
    const run = async (payment?: PaymentContext): Promise<Outcome<unknown>> => {
      if (refused) return refused as Outcome<unknown>;
      const problem = coldProbe ? await check() : undefined;
      if (problem) return problem;
      return finalise(await product.handle(payment ? { ...input, payment } : input, deps.ctx), replay);
    };
    if (isFree(product)) return outcomeResponse(withNotConfigured(await run(), disabled));

    if (parsed.sampleRequested && isSampleRequest(product, parsed.params)) {
      if (paymentHeader) {
        // A sample asked with a payment is still a free sample: counted like any unpaid request.
        const refused = await gate.paymentUnused(c, expensive);
        if (refused) return refused;
      }
      const taken = await samples.take(product.sku, clientKey(clientAddress(c, config)));
      if (!taken.allowed) {
        return jsonResponse(
          429,
          {
            error: "sample_limit",
            message: `The free sample is limited to ${config.samplesPerHour} requests an hour per client; buy the call or retry later.`,
            charged: false,
            retryAfterSec: taken.retryAfterSec,
          },
          { "retry-after": String(taken.retryAfterSec) },
        );
      }
      const sample = await run();
      if (sample.status === 200) usage.sample(product.sku);
      return outcomeResponse(sample);
    }

    const paywall = deps.paywall();
    if (!paywall) {
      return jsonResponse(
        503,
        {
          error: "payments_starting",
          message: "Payments are not ready yet (syncing with the facilitator); retry shortly.",
          charged: false,
        },
        { "retry-after": "5" },
      );
    }
    // The Bazaar declaration (the route's schemas) is made by its first paid request, then kept.
    enrichedExtensions ??= paywall.enrich(
      isFree(product) ? {} : bazaarExtension(describe(product)),
      product.method,
      product.path,
    );
    const request = {
      product,
      priceUsd: refused ? minimumPrice(product) : priceOf(product, input),
      resourceUrl: `${config.publicUrl}${url.pathname}${url.search}`,
      ...(freeSampleUrl ? { freeSampleUrl } : {}),
      extensions: enrichedExtensions,
    };
    if (typeof product.price !== "string") notePrice(c, request.priceUsd);
    if (!paymentHeader) {
      const parts = await paywall.challengeParts(request);
      if (product.method === "GET") {
        if (recentChallenges.size >= RECENT_CHALLENGE_LIMIT) recentChallenges.clear();
        recentChallenges.set(c.req.url, { at: Date.now(), parts });
      }
      usage.challenge(product.sku);
      return challengeResponse(parts);
    }
    // Paid calls are counted where they settle (the paywall's events, src/observability/paywall-events.ts).
    const charged = await paywall.charge({
      ...request,
      paymentHeader,
      requestHash: sha256(canonicalRequest(product.method, product.path, parsed.params, input.body)),
      run,
    });
    // A payment refused before settlement (a 402 without PAYMENT-RESPONSE) was unpaid work: it counts.
    if (charged.status === 402 && !charged.headers.has("payment-response")) {
      const refused = await gate.paymentUnused(c, expensive);
      if (refused) return refused;
    }
    return charged;
  };
}

export function buildApp(deps: AppDeps): Hono {
  const { config, store } = deps.ctx;
  const app = new Hono();
  const metrics = deps.observability?.metrics;
  app.use(observeRequests({ log: deps.ctx.log, metrics, products: routeProducts(deps.products) }));
  app.use(limitBodies(bodyCap));
  const gate = new UnpaidGate(deps.rateLimits, config);
  app.options("*", () => new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }));

  // A product's description (its JSON schemas) is made when a document or its own first paid request needs it.
  const described = new Map<AnyProduct, ProductDescription>();
  const describe = (product: AnyProduct): ProductDescription => {
    let description = described.get(product);
    if (!description) {
      description = describeProduct(config, product);
      described.set(product, description);
    }
    return description;
  };
  const descriptions = once(() => deps.products.map(describe));
  const samples = new SampleLimiter(store, config.samplesPerHour);
  const recentChallenges: RecentChallenges = new Map();
  const disabled = disabledBySku(deps.disabledFamilies);
  const disabledList = (deps.disabledFamilies ?? []).flatMap((f) =>
    f.unavailable ? [{ family: f.name, ...f.unavailable }] : [],
  );

  // The documents are built when first asked for (then kept): a server that nobody reads them from does not
  // hold them. Disabled families stay in the catalog (their routes answer why); only what can be bought is offered.
  const catalog = once(() =>
    JSON.stringify({
      ...buildCatalog(config, descriptions()),
      ...(disabledList.length ? { disabledFamilies: disabledList } : {}),
    }),
  );
  const openapi = once(() => JSON.stringify(buildOpenApi(config, descriptions())));
  const sections = new Map<string, string>();
  const openapiSection = (name: string): string | undefined => {
    if (!sections.has(name)) {
      if (!descriptions().some((d) => d.mode === "paid" && sectionOf(d.path) === name)) return undefined;
      sections.set(name, JSON.stringify(buildOpenApi(config, descriptions(), name)));
    }
    return sections.get(name);
  };
  const mcp = mcpRoutes({
    config,
    products: deps.products,
    descriptions,
    disabled,
    unpaid: gate,
    fetch: (request, env) => app.fetch(request, env),
  });
  const wellKnown = once(() =>
    JSON.stringify({
      ...buildWellKnown(
        config,
        descriptions().filter((d) => !disabled.has(d.sku)),
      ),
      mcp: mcp.discovery(),
    }),
  );
  const terms = once(() => JSON.stringify(buildTerms(config, descriptions())));
  const guidance = once(() => `# ${config.serviceName}\n\n${agentGuidance(config)}\n`);
  const staticJson = (text: () => string) => () =>
    new Response(text(), {
      headers: { ...JSON_HEADERS, "cache-control": "public, max-age=60" },
    });

  app.get("/health", async () => {
    // Uncertain settlements and the chain-RPC alarm: an operator sees them without reading SQL.
    const settlements = await deps
      .paywall()
      ?.settlementStatus()
      .catch(() => undefined);
    return jsonResponse(
      200,
      {
        ok: true,
        service: "paycall",
        payments: deps.paywall() ? "ready" : "starting",
        ...(settlements ? { settlements } : {}),
        mode: {
          facilitator: config.facilitator.kind,
          upstreams: config.upstreams,
          store: store.kind,
        },
        networks: config.networks.map((n) => n.caip2),
        ...(disabledList.length ? { disabledFamilies: disabledList } : {}),
        ...(config.facilitator.kind === "local"
          ? {
              notice:
                "Local facilitator: payments are settled against a pretend USDC ledger in the store. No real money moves.",
            }
          : {}),
        ...(config.upstreams === "replay"
          ? { upstreamNotice: "UPSTREAMS=replay: answers come from recorded samples, not live data." }
          : {}),
        checkedAt: new Date().toISOString(),
      },
      { "cache-control": "no-store" },
    );
  });

  app.get("/ready", async () => {
    const problems: string[] = [];
    if (deps.draining()) problems.push("draining: shutting down");
    else {
      if (config.role !== "worker" && !deps.paywall())
        problems.push("payments: not synced with the facilitator");
      if (!(await store.ping(2000))) problems.push("store: not answering");
    }
    return jsonResponse(
      problems.length ? 503 : 200,
      { ready: problems.length === 0, role: config.role, problems, checkedAt: new Date().toISOString() },
      { "cache-control": "no-store" },
    );
  });

  if (deps.localFacilitator) app.route("/local-facilitator", deps.localFacilitator);
  const signIns = new SignInLimiter();
  const metricsGuard = { signIns, client: (c: Context) => clientKey(clientAddress(c, config)) };
  if (metrics) app.get("/metrics", (c) => metricsRoute(c, metrics, config.adminToken, metricsGuard));
  // A worker node answers probes (and its local facilitator) only; the API is on serve nodes.
  if (config.role === "worker") return withErrorHandling(app, deps);

  app.get("/", staticJson(catalog));
  app.get("/catalog.json", staticJson(catalog));
  app.get("/openapi.json", staticJson(openapi));
  app.get("/openapi/:file", (c) => {
    const name = /^([a-z0-9-]+)\.json$/.exec(c.req.param("file"))?.[1];
    const text = name ? openapiSection(name) : undefined;
    return text ? staticJson(() => text)() : c.notFound();
  });
  app.get("/.well-known/x402", staticJson(wellKnown));
  app.route("/", didDocumentRoutes(config));
  app.get("/terms.json", staticJson(terms));
  app.get("/llms.txt", () => new Response(guidance(), { headers: TEXT_HEADERS }));
  for (const path of FAVICON_PATHS) app.get(path, () => new Response(FAVICON_SVG, { headers: SVG_HEADERS }));

  app.route("/admin", adminRoutes({ ...deps.ctx, families: deps.families ?? [], signIns }));

  for (const product of deps.products) {
    app.on(
      product.method,
      product.path,
      productRoute(deps, product, describe, samples, recentChallenges, disabled.get(product.sku), gate),
    );
  }
  app.route("/mcp", mcp.routes);

  return withErrorHandling(app, deps);
}

/** `build()`'s value, computed on the first call and kept. */
function once<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
}

function withErrorHandling(app: Hono, deps: AppDeps): Hono {
  app.notFound((c) =>
    jsonResponse(404, {
      error: "not_found",
      message:
        deps.ctx.config.role === "worker"
          ? "This is a worker node (ROLE=worker); it serves /health and /ready only."
          : `No route ${c.req.method} ${new URL(c.req.url).pathname}; see /catalog.json.`,
      charged: false,
    }),
  );
  app.onError((error, c) => {
    deps.ctx.log.error({ err: error.message, path: new URL(c.req.url).pathname }, "unhandled error");
    return jsonResponse(500, {
      error: "internal_error",
      message: "The request failed on our side; nothing was charged.",
      charged: false,
    });
  });
  return app;
}
