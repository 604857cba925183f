// Builds the HTTP app from the product list: every route, document and check is derived from it.

import { type Context, Hono } from "hono";
import { limitBodies } from "./abuse/body-limit.ts";
import { clientAddress } from "./abuse/client-address.ts";
import { UnpaidGate } from "./abuse/unpaid-gate.ts";
import { metricsRoute } from "./admin/metrics-route.ts";
import { adminRoutes } from "./admin/routes.ts";
import { SignInLimiter } from "./admin/sign-in-limit.ts";
import { describeProduct, type ProductDescription } from "./catalog/describe.ts";
import { buildCatalog, buildTerms, buildWellKnown } from "./catalog/documents.ts";
import { FAVICON_PATHS, FAVICON_SVG, SVG_HEADERS, TEXT_HEADERS } from "./catalog/favicon.ts";
import { agentGuidance } from "./catalog/guidance.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./catalog/input.ts";
import { buildOpenApi, NO_OFFERS, type SchemeOffers, sectionOf } from "./catalog/openapi.ts";
import type { AnyProduct } from "./catalog/product.ts";
import { errorResponse } from "./errors.ts";
import type { AppDeps } from "./http/app-deps.ts";
import { type DisabledInfo, disabledBySku } from "./http/disabled-families.ts";
import { health, ready } from "./http/probes.ts";
import { type ProductRoute, productRoute } from "./http/product-route.ts";
import { RecentChallenges } from "./http/recent-challenges.ts";
import { httpResponse } from "./http/render.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { MCP_PATH } from "./mcp/tools.ts";
import { observeRequests, routeProducts } from "./observability/requests.ts";
import { JSON_HEADERS, PREFLIGHT_HEADERS } from "./responses.ts";
import { storeFailureAnswer } from "./x402/seller/paid-call/store-ready.ts";
import { didDocumentRoutes } from "./x402/seller/receipts/did-document.ts";
import { clientKey, SampleLimiter } from "./x402/seller/samples.ts";

/** The body cap of every route: a product's body, or an MCP message with its envelope and a payment payload. */
const MCP_MAX_BODY_BYTES = 2 * DEFAULT_MAX_BODY_BYTES;
const bodyCap = (path: string) =>
  path === "/mcp" || path.startsWith("/mcp/") ? MCP_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES;

export function buildApp(deps: AppDeps): Hono {
  const { config, store } = deps.ctx;
  const app = new Hono();
  const metrics = deps.observability?.metrics;
  app.use(observeRequests({ log: deps.ctx.log, metrics, products: routeProducts(deps.products) }));
  app.use(limitBodies(bodyCap, (path) => path === MCP_PATH));
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
  const recentChallenges = new RecentChallenges();
  const disabled = disabledBySku(deps.disabledFamilies);
  const disabledList: DisabledInfo[] = (deps.disabledFamilies ?? []).flatMap((f) =>
    f.unavailable ? [{ family: f.name, ...f.unavailable }] : [],
  );

  // The documents are built when first asked for (then kept): a server that nobody reads them from does not
  // hold them. Disabled families stay in the catalog (their routes answer why); only what can be bought is offered.
  // Where `upto` and `batch-settlement` are offered is known once payments are ready: what was built before is
  // built again then.
  const offers = (): SchemeOffers => {
    const paywall = deps.paywall();
    return paywall ? { upto: paywall.uptoNetworks(), batch: paywall.batchNetworks() } : NO_OFFERS;
  };
  const untilPaymentsReady = (build: () => string) => {
    let kept: { ready: boolean; text: string } | undefined;
    return () => {
      const ready = deps.paywall() !== undefined;
      if (!kept || (ready && !kept.ready)) kept = { ready, text: build() };
      return kept.text;
    };
  };
  const catalog = untilPaymentsReady(() =>
    JSON.stringify({
      ...buildCatalog(config, descriptions(), offers()),
      ...(disabledList.length ? { disabledFamilies: disabledList } : {}),
    }),
  );
  const openapi = untilPaymentsReady(() =>
    JSON.stringify(buildOpenApi(config, descriptions(), undefined, offers())),
  );
  const sections = new Map<string, () => string>();
  const openapiSection = (name: string): string | undefined => {
    if (!sections.has(name)) {
      if (!descriptions().some((d) => d.mode === "paid" && sectionOf(d.path) === name)) return undefined;
      sections.set(
        name,
        untilPaymentsReady(() => JSON.stringify(buildOpenApi(config, descriptions(), name, offers()))),
      );
    }
    return sections.get(name)?.();
  };
  // Each product's route stages, for the tool calls MCP carries (the HTTP routes are registered below).
  const routeCalls = new Map<string, ProductRoute["call"]>();
  const mcp = mcpRoutes({
    config,
    products: deps.products,
    descriptions,
    disabled,
    unpaid: gate,
    log: deps.ctx.log,
    route: (sku) => routeCalls.get(sku),
  });
  const wellKnown = untilPaymentsReady(() =>
    JSON.stringify({
      ...buildWellKnown(
        config,
        descriptions().filter((d) => !disabled.has(d.sku)),
        offers(),
      ),
      mcp: mcp.discovery(offers()),
    }),
  );
  const terms = once(() => JSON.stringify(buildTerms(config, descriptions())));
  const guidance = once(() => `# ${config.serviceName}\n\n${agentGuidance(config)}\n`);
  const staticJson = (text: () => string) => () =>
    new Response(text(), {
      headers: { ...JSON_HEADERS, "cache-control": "public, max-age=60" },
    });

  app.get("/health", () => health(deps, disabledList));
  app.get("/ready", () => ready(deps));

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

  app.route(
    "/admin",
    adminRoutes({
      ...deps.ctx,
      families: deps.families ?? [],
      signIns,
      ...(deps.paidCallsNow ? { paidCallsNow: deps.paidCallsNow } : {}),
      channelRefunder: () => {
        const batch = deps.paywall()?.batch;
        return batch && ((network, channel) => batch.refund(network, channel));
      },
    }),
  );

  for (const product of deps.products) {
    const route = productRoute({
      deps,
      product,
      describe,
      samples,
      recentChallenges,
      disabled: disabled.get(product.sku),
      gate,
    });
    app.on(product.method, product.path, route.http);
    routeCalls.set(product.sku, route.call);
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
    errorResponse(
      "not_found",
      deps.ctx.config.role === "worker"
        ? "This is a worker node (ROLE=worker); it serves /health and /ready only."
        : `No route ${c.req.method} ${new URL(c.req.url).pathname}; see /catalog.json.`,
    ),
  );
  app.onError((error, c) => {
    const storeDown = storeFailureAnswer(error);
    if (storeDown) return httpResponse(storeDown);
    deps.ctx.log.error({ err: error.message, path: new URL(c.req.url).pathname }, "unhandled error");
    return errorResponse("internal_error");
  });
  return app;
}
