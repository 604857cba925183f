// Loopback x402 sellers for the doctor's tests, each with one defect seen in the wild.
// Tests reach them only through the operator allow-list (DOCTOR_ALLOW_HOSTS).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { NETWORKS } from "../../../x402/shared/networks.ts";

export const SELLER_PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const BASE_USDC = NETWORKS.base.usdc.address;

export function option(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    scheme: "exact",
    network: "eip155:8453",
    amount: "10000",
    asset: BASE_USDC,
    payTo: SELLER_PAY_TO,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

const GOOD_HEADERS = {
  "content-type": "application/json",
  "cache-control": "no-store",
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE",
};

function challenge(url: string, accepts: unknown[], extra: Record<string, unknown> = {}) {
  return {
    x402Version: 2,
    error: "Payment required",
    resource: { url, mimeType: "application/json" },
    accepts,
    ...extra,
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

/** A 402 carrying `accepts` in a standard base64 header, with good CORS and caching unless overridden. */
function paywall(
  url: string,
  accepts: unknown[],
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Answer {
  const required = challenge(url, accepts, extra);
  return {
    status: 402,
    headers: { ...GOOD_HEADERS, "payment-required": b64(required), ...headers },
    body: JSON.stringify({ error: "payment_required", accepts: required.accepts }),
  };
}

/** A header whose base64url form differs from standard base64 (it contains - or _). */
function base64UrlHeader(url: string): string {
  for (let pad = 0; pad < 64; pad++) {
    const encoded = Buffer.from(
      JSON.stringify(challenge(url, [option()], { description: `~~~${"?".repeat(pad)}>>>` })),
    ).toString("base64url");
    if (/[-_]/.test(encoded)) return encoded;
  }
  throw new Error("could not build a distinguishing base64url header");
}

export const DEFECTS: Record<string, (url: string, query: URLSearchParams) => Answer> = {
  ok: (url) => paywall(url, [option()]),
  // Checks its parameter before the paywall: a bare request (as indexers probe) gets 400, not 402.
  "validates-first": (url, query) =>
    query.get("q")
      ? paywall(url, [option()])
      : { status: 400, headers: { "content-type": "application/json" }, body: '{"error":"q is required"}' },
  "no-cors": (url) => ({
    ...paywall(url, [option()]),
    headers: {
      "content-type": "application/json",
      "cache-control": "no-store",
      "payment-required": b64(challenge(url, [option()])),
    },
  }),
  "cors-no-expose": (url) => paywall(url, [option()], { "access-control-expose-headers": "Retry-After" }),
  "legacy-network": (url) => paywall(url, [option({ network: "base" })]),
  "wrong-asset": (url) => paywall(url, [option({ asset: NETWORKS["base-sepolia"].usdc.address })]),
  "other-token": (url) => paywall(url, [option({ asset: "0x4200000000000000000000000000000000000006" })]),
  "decimal-amount": (url) => paywall(url, [option({ amount: "0.01" })]),
  "number-amount": (url) => paywall(url, [option({ amount: 10000 })]),
  "mis-scaled": (url) => paywall(url, [option({ amount: "10000000000000000" })]),
  "domain-mismatch": (url) => paywall(url, [option({ extra: { name: "USDC", version: "2" } })]),
  "domain-missing": (url) => paywall(url, [option({ extra: undefined })]),
  "zero-pay-to": (url) => paywall(url, [option({ payTo: "0x0000000000000000000000000000000000000000" })]),
  "bad-checksum": (url) => paywall(url, [option({ payTo: "0x209693bc6afc0C5328bA36FaF03C514EF312287C" })]),
  "empty-accepts": (url) => paywall(url, []),
  "short-timeout": (url) => paywall(url, [option({ maxTimeoutSeconds: 5 })]),
  "testnet-only": (url) =>
    paywall(url, [
      option({
        network: "eip155:84532",
        asset: NETWORKS["base-sepolia"].usdc.address,
        extra: { name: "USDC", version: "2" },
      }),
    ]),
  "solana-no-fee-payer": (url) =>
    paywall(url, [
      option({
        network: NETWORKS.solana.caip2,
        asset: NETWORKS.solana.usdc.address,
        payTo: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
        extra: {},
      }),
    ]),
  "v1-version": (url) => ({
    ...paywall(url, [option()]),
    headers: { ...GOOD_HEADERS, "payment-required": b64({ ...challenge(url, [option()]), x402Version: 1 }) },
  }),
  cacheable: (url) => paywall(url, [option()], { "cache-control": "public, max-age=300" }),
  "resource-http": (url) =>
    paywall(url, [option()], {}, { resource: { url: url.replace("http://", "https://") } }),
  "header-body-mismatch": (url) => ({
    ...paywall(url, [option()]),
    body: JSON.stringify({ accepts: [option({ amount: "20000" })] }),
  }),
  base64url: (url) => ({
    status: 402,
    headers: { ...GOOD_HEADERS, "payment-required": base64UrlHeader(url) },
    body: "{}",
  }),
  "unreadable-header": () => ({
    status: 402,
    headers: { ...GOOD_HEADERS, "payment-required": "not base64 at all!" },
    body: "{}",
  }),
  "json-header": (url) => ({
    status: 402,
    headers: { ...GOOD_HEADERS, "payment-required": JSON.stringify(challenge(url, [option()])) },
    body: "{}",
  }),
  "v1-body": () => ({
    status: 402,
    headers: GOOD_HEADERS,
    body: JSON.stringify({
      x402Version: 1,
      error: "X-PAYMENT header is required",
      accepts: [
        {
          scheme: "exact",
          network: "base",
          maxAmountRequired: "10000",
          asset: BASE_USDC,
          payTo: SELLER_PAY_TO,
          resource: "x",
          maxTimeoutSeconds: 60,
        },
      ],
    }),
  }),
  "body-only": (url) => ({
    status: 402,
    headers: GOOD_HEADERS,
    body: JSON.stringify(challenge(url, [option()])),
  }),
  "bare-402": () => ({ status: 402, headers: { "content-type": "text/plain" }, body: "Payment Required" }),
  "host-platform": () => ({
    status: 402,
    headers: { "content-type": "text/plain" },
    body: "The deployment is currently unavailable.\n\nDEPLOYMENT_DISABLED",
  }),
  free: () => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ data: [1, 2, 3] }),
  }),
  auth: () => ({ status: 401, headers: { "www-authenticate": "Bearer" }, body: "Unauthorized" }),
  waf: () => ({
    status: 403,
    headers: { "content-type": "text/html", server: "cloudflare", "cf-mitigated": "challenge" },
    body: "<html><title>Just a moment...</title></html>",
  }),
  geo: () => ({ status: 451, body: "Unavailable For Legal Reasons" }),
  "rate-limited": () => ({ status: 429, headers: { "retry-after": "30" }, body: "Too Many Requests" }),
  missing: () => ({ status: 404, body: "Not Found" }),
  broken: () => ({ status: 500, body: "Internal Server Error" }),
  // What nginx answers when the seller's 402 head passes its proxy_buffer_size.
  "proxy-502": () => ({
    status: 502,
    headers: { server: "nginx/1.22.1", "content-type": "text/html" },
    body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.22.1</center></body></html>",
  }),
  "proxy-400": () => ({
    status: 400,
    headers: { "content-type": "text/html" },
    body: "<html><head><title>400 Bad Request</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>",
  }),
  // A valid 402 whose head (a 5 KB PAYMENT-REQUIRED) a default nginx refuses.
  "big-head": (url) => paywall(url, [option()], {}, { description: "x".repeat(4000) }),
  slow: (url) => ({ ...paywall(url, [option()]), delayMs: 1100 }),
};

/** The sellers' own OpenAPI: documents the example request of the route that validates first. */
const SELLER_OPENAPI = {
  openapi: "3.1.0",
  info: { title: "fake sellers", version: "1" },
  paths: {
    "/validates-first": {
      get: {
        parameters: [
          { name: "q", in: "query", required: true, schema: { type: "string", example: "coffee" } },
        ],
        "x-payment-info": {
          price: { mode: "fixed", currency: "USD", amount: "0.01" },
          protocols: [{ x402: {} }],
        },
        responses: { "402": { description: "Payment required" } },
      },
    },
  },
};

export interface FakeSellers {
  origin: string;
  hostPort: string;
  url: (defect: string) => string;
  /** Requests received, as "METHOD /path". */
  requests: string[];
  close: () => Promise<void>;
}

/** One loopback server answering /<defect> as DEFECTS says; /post-only wants POST; OPTIONS is a good preflight. */
export async function startFakeSellers(): Promise<FakeSellers> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(`${req.method} ${path}`);
    const origin = `http://${req.headers.host}`;
    if (req.method === "OPTIONS") {
      if (path === "/no-preflight" || path === "/no-cors") {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "Content-Type, PAYMENT-SIGNATURE",
      });
      res.end();
      return;
    }
    if (path === "/post-only" && req.method !== "POST") {
      res.writeHead(405, { allow: "POST" });
      res.end();
      return;
    }
    if (path === "/openapi.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(SELLER_OPENAPI));
      return;
    }
    const defect = path === "/post-only" || path === "/no-preflight" ? "ok" : path.slice(1);
    const make = DEFECTS[defect];
    if (!make) {
      res.writeHead(404);
      res.end();
      return;
    }
    const answer = make(`${origin}${path}`, new URL(req.url ?? "/", "http://x").searchParams);
    setTimeout(() => {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body ?? "");
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    hostPort: `127.0.0.1:${port}`,
    url: (defect) => `${origin}/${defect}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
