// POST /mcp: the MCP Streamable HTTP endpoint, stateless (JSON answers). tools/list and MCP 2026-07-28 requests
// are answered by direct.ts; the rest by the SDK, a server and transport per request, as its stateless examples
// do. GET and DELETE /mcp answer 405 like them (no sessions, no SSE stream).
import { type Context, Hono } from "hono";
import { cappedBody } from "../abuse/body-limit.ts";
import type { UnpaidGate } from "../abuse/unpaid-gate.ts";
import { catalogVersion, type ProductDescription } from "../catalog/describe.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../catalog/input.ts";
import type { SchemeOffers } from "../catalog/openapi.ts";
import { type AnyProduct, isFree } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import { CORS_HEADERS } from "../responses.ts";
import type { CallDeps } from "./call.ts";
import { answerDirect } from "./direct.ts";
import { buildOffer, type Offer } from "./offer.ts";
import { PAYMENT_META_KEY, PAYMENT_RESPONSE_META_KEY } from "./tool-outcome.ts";
import { buildMcpTools, checkToolNames, type McpTool, mcpDiscovery } from "./tools.ts";
import { countMessages, MAX_BATCH, readBody } from "./unpaid-messages.ts";

interface McpDeps extends CallDeps {
  config: Config;
  products: AnyProduct[];
  /** Every product's description, in the products' order (made on first call). */
  descriptions: () => ProductDescription[];
  /** SKUs of disabled families: their paid products are not offered (their free ones are, and say why). */
  disabled: { has: (sku: string) => boolean };
  /** The unpaid limit: each message of a POST counts (src/mcp/unpaid-messages.ts). */
  unpaid?: UnpaidGate;
}

// A POST tool's body plus the JSON-RPC envelope and a payment payload.
const MAX_REQUEST_BODY_BYTES = 2 * DEFAULT_MAX_BODY_BYTES;

const INSTRUCTIONS = `paycall: pay-per-call JSON data. Free tools answer at once. A paid tool called without payment returns isError with the x402 v2 PaymentRequired in structuredContent and, as JSON, in content[0].text (x402 MCP transport; on MCP 2026-07-28 with the org.x402/payment extension, resultType "payment_required"). Sign one of its accepts and repeat the call with the PaymentPayload in params._meta["${PAYMENT_META_KEY}"]; the settlement comes back in result._meta["${PAYMENT_RESPONSE_META_KEY}"]. Charged only for successful answers. A tool priced per call may also offer the batch-settlement scheme (where its accepts list it): deposit once into a channel, then pay each call with a signed voucher, claimed in batches. Prices: each tool's _meta["x402/price"]. Answer schemas: /openapi.json and each payment requirement's Bazaar declaration.`;

// The SDK (about 80 modules with its JSON-schema validators) is loaded by the first request it answers.
let mcpServer: Promise<typeof import("./server.ts")> | undefined;
const loadMcpServer = () => {
  mcpServer ??= import("./server.ts");
  return mcpServer;
};

const utf8 = new TextDecoder();

/** The body as text, as Request.text() decodes it (a leading byte-order mark dropped). */
async function bodyText(c: Context): Promise<string> {
  const bytes = cappedBody(c);
  return bytes ? utf8.decode(bytes) : await c.req.raw.text();
}

function withCors(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, headers });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return withCors(
    new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
      status,
      headers: { "content-type": "application/json", ...(status === 405 ? { allow: "POST" } : {}) },
    }),
  );
}

/**
 * POST /mcp and the MCP part of /.well-known/x402. The tools (each with its schemas and Bazaar declaration) are
 * built when first asked for, by an MCP request or the well-known document; their names are checked at once.
 */
export function mcpRoutes(deps: McpDeps) {
  checkToolNames(deps.products.filter((p) => isFree(p) || !deps.disabled.has(p.sku)));
  let offered: ProductDescription[] | undefined;
  const offeredDescriptions = () => {
    offered ??= deps.descriptions().filter((d) => d.mode === "free" || !deps.disabled.has(d.sku));
    return offered;
  };
  let tools: McpTool[] | undefined;
  const toolsOffered = () => {
    tools ??= buildMcpTools(deps.config, offeredDescriptions());
    return tools;
  };
  let offer: Offer | undefined;
  const offerOf = (): Offer => {
    offer ??= buildOffer(catalogVersion(offeredDescriptions()), toolsOffered());
    return offer;
  };
  const routes = new Hono();

  routes.post("/", async (c: Context) => {
    // The body was read under the route's cap (src/abuse/body-limit.ts); counted before the SDK parses it.
    const read = readBody(await bodyText(c));
    if (deps.unpaid) {
      const count = countMessages(read);
      if ("tooMany" in count) {
        return jsonRpcError(
          400,
          -32600,
          `Invalid Request: a batch of ${count.tooMany} messages; at most ${MAX_BATCH} in one POST.`,
        );
      }
      // A paid tool call alone counts nothing here (its route counts a payment that does not verify).
      const refused = count.units > 0 ? await deps.unpaid.take(c, count.units) : undefined;
      if (refused) return withCors(refused);
      deps.unpaid.markCounted(c);
    }
    const direct = await answerDirect(
      { deps, offer: offerOf(), instructions: INSTRUCTIONS },
      c,
      MAX_REQUEST_BODY_BYTES,
      read,
    );
    if ("response" in direct) return direct.response;
    // The SDK reads a body it was not given parsed (one that is not JSON) from the request.
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, { method: raw.method, headers: raw.headers, body: read.text });
    const { answerMcp } = await loadMcpServer();
    return withCors(
      await answerMcp(deps, offerOf(), INSTRUCTIONS, c, direct.parsedBody, MAX_REQUEST_BODY_BYTES),
    );
  });
  const notAllowed = () =>
    jsonRpcError(405, -32000, "Method not allowed: this MCP endpoint is stateless; POST only.");
  routes.get("/", notAllowed);
  routes.delete("/", notAllowed);

  return { routes, discovery: (offers: SchemeOffers) => mcpDiscovery(deps.config, toolsOffered(), offers) };
}
