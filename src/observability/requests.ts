// The first middleware: a request id on every answer, one JSON log line per request and the HTTP metrics.
// The line names the route template, never the URL (queries may carry anything), and no header of the request.
// Cheap on the unpaid 402 path: no Date, no closure and nothing decoded unless a paid call was answered.
import { randomBytes } from "node:crypto";
import type { HttpBindings } from "@hono/node-server";
import type { SettleResponse } from "@x402/core/types";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AnyProduct } from "../catalog/product.ts";
import type { Logger } from "../log.ts";
import { noteRequest } from "../memory-release.ts";
import { decodeHeaderJson } from "../x402/shared/header-codec.ts";
import type { Metrics } from "./metrics.ts";
import { RequestIdResponse } from "./request-id-response.ts";

/** A client's own id is kept when it is a plain token; anything else is replaced, never echoed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const PRICE_KEY = "paycallPrice";
const PAID_ANSWER_KEY = "paycallPaidAnswer";

/** What the middleware knows of a product route from its declaration. */
interface RouteProduct {
  sku: string;
  /** The fixed price; dynamic prices are noted per request with `notePrice`. */
  price?: string;
}

/** Product routes by path template, with their fixed prices. */
export function routeProducts(products: AnyProduct[]): Map<string, RouteProduct> {
  return new Map(
    products.map((p) => [
      p.path,
      typeof p.price === "string" ? { sku: p.sku, price: p.price } : { sku: p.sku },
    ]),
  );
}

/** The price of this request when it is computed from the request (logged with the request). */
export function notePrice(c: Context, priceUsd: string): void {
  c.set(PRICE_KEY as never, priceUsd as never);
}

/** A paid answer as the route rendered it: its PAYMENT-RESPONSE, and the settlement in it when the call has it. */
interface PaidAnswerNote {
  paymentResponse: string;
  settlement?: SettleResponse;
}

/**
 * The paid answer of this request (logged with its payer). Noted by the route rather than read back from the
 * response: reading the headers of @hono/node-server's cheap response makes it build a full one.
 */
export function notePaidAnswer(c: Context, answer: PaidAnswerNote): void {
  c.set(PAID_ANSWER_KEY as never, answer as never);
}

/** Ids unique across the cluster: a random prefix per process and a counter. */
function requestIds(): () => string {
  const prefix = `${randomBytes(5).toString("hex")}-`;
  let counter = 0;
  return () => prefix + (++counter).toString(36);
}

/** The route template that answered: the last matched route that is not a middleware (`app.use`, method ALL). */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c).filter((r) => r.method !== "ALL");
  return routes[routes.length - 1]?.path ?? "unmatched";
}

/** The payer of a settled paid call, from the paid answer the route noted; undefined when not settled. */
function settledPayer(answer: PaidAnswerNote | undefined): string | null | undefined {
  if (!answer) return undefined;
  try {
    // A kept answer served again has only its header.
    const settlement = answer.settlement ?? decodeHeaderJson<SettleResponse>(answer.paymentResponse);
    return settlement.success ? (settlement.payer ?? null) : undefined;
  } catch {
    return undefined;
  }
}

interface RequestObserverOptions {
  log: Logger;
  metrics?: Metrics;
  /** Product routes by path template. */
  products: Map<string, RouteProduct>;
}

/** Paths a load balancer or monitor asks on a timer. */
const PROBE_PATHS = new Set(["/health", "/ready", "/metrics"]);

export function observeRequests({ log, metrics, products }: RequestObserverOptions): MiddlewareHandler {
  const nextId = requestIds();
  return async (c, next) => {
    // Probes come every few seconds whatever the traffic: they must not hold the memory collection off.
    if (!PROBE_PATHS.has(c.req.path)) noteRequest();
    const started = performance.now();
    const given = c.req.header("x-request-id");
    const id = given !== undefined && SANE_REQUEST_ID.test(given) ? given : nextId();
    // Handed to the Node response, which writes it with the others (request-id-response.ts): reading
    // c.res.headers would turn @hono/node-server's cheap response into a full one. A request the app makes to
    // itself (an MCP tool call) shares the outer request's Node response, which keeps the outer id.
    const outgoing = (c.env as HttpBindings | undefined)?.outgoing;
    if (outgoing instanceof RequestIdResponse) {
      outgoing.requestId ??= id;
      await next();
    } else {
      await next();
      if (!c.res.headers.has("x-request-id")) c.res.headers.set("x-request-id", id);
    }

    const logging = log.isLevelEnabled("info");
    if (!metrics && !logging) return;
    const status = c.res.status;
    const route = routeOf(c);
    const method = c.req.method;
    const ms = performance.now() - started;
    const product = products.get(route);
    metrics?.request(route, method, status, ms / 1000);
    if (!logging) return;

    const payer =
      status === 200 && c.req.header("payment-signature") !== undefined
        ? settledPayer(c.get(PAID_ANSWER_KEY as never) as PaidAnswerNote | undefined)
        : undefined;
    const price = (c.get(PRICE_KEY as never) as string | undefined) ?? product?.price;
    // One flat object, undefined fields left out by pino.
    log.info(
      {
        reqId: id,
        route,
        method,
        status,
        ms: Math.round(ms * 10) / 10,
        sku: product?.sku,
        price,
        charged: payer !== undefined,
        payer: payer ?? undefined,
      },
      "request",
    );
  };
}
