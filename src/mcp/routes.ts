// POST /mcp: the MCP Streamable HTTP endpoint, stateless (a server and transport per request, JSON answers),
// as the SDK's stateless examples do; GET and DELETE /mcp answer 405 like them (no sessions, no SSE stream).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { catalogVersion, type ProductDescription } from "../catalog/describe.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../catalog/input.ts";
import type { Config } from "../config.ts";
import { CORS_HEADERS } from "../responses.ts";
import { type CallDeps, callTool, PAYMENT_META_KEY, PAYMENT_RESPONSE_META_KEY } from "./call.ts";
import { buildMcpTools, type McpTool, mcpDiscovery } from "./tools.ts";

export interface McpDeps extends CallDeps {
  config: Config;
  descriptions: ProductDescription[];
  /** SKUs of disabled families: their paid products are not offered (their free ones are, and say why). */
  disabled: { has: (sku: string) => boolean };
}

const INSTRUCTIONS = `paycall: pay-per-call JSON data. Free tools answer at once. A paid tool called without payment returns isError with the x402 v2 payment requirements in content[0].text ({"x402/error": {"code": 402, "data": PaymentRequired}}); an x402 MCP client signs one of the accepts and repeats the call with the PaymentPayload in params._meta["${PAYMENT_META_KEY}"]. The settlement receipt comes back in result._meta["${PAYMENT_RESPONSE_META_KEY}"]. You are charged only for successful answers. Prices are in each tool's _meta["x402/price"].`;

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

interface Offer {
  version: string;
  byName: Map<string, McpTool>;
  list: { tools: Tool[] };
}

/** A server for one request (stateless): it lists the tools and answers their calls through the HTTP app. */
function serverFor(deps: McpDeps, offer: Offer, c: Context): Server {
  const server = new Server(
    { name: "paycall", version: offer.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => offer.list);
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = offer.byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; see tools/list`);
    }
    return callTool(deps, tool, request.params.arguments ?? {}, request.params._meta, {
      env: c.env,
      forwardedFor: c.req.header("x-forwarded-for"),
    });
  });
  return server;
}

export function mcpRoutes(deps: McpDeps) {
  const offered = deps.descriptions.filter((d) => d.mode === "free" || !deps.disabled.has(d.sku));
  const tools = buildMcpTools(deps.config, offered);
  const offer: Offer = {
    // The catalog version as the server's: it changes whenever a tool's route, price or schemas change.
    version: catalogVersion(offered),
    byName: new Map(tools.map((t) => [t.name, t])),
    list: { tools: tools.map((t) => t.definition) },
  };
  const routes = new Hono();

  routes.post("/", async (c) => {
    const server = serverFor(deps, offer, c);
    const transport = new WebStandardStreamableHTTPServerTransport({
      enableJsonResponse: true,
      // A POST tool's body plus the JSON-RPC envelope and a payment payload.
      maxRequestBodySize: 2 * DEFAULT_MAX_BODY_BYTES,
    });
    try {
      await server.connect(transport);
      return withCors(await transport.handleRequest(c.req.raw));
    } finally {
      await server.close();
    }
  });
  const notAllowed = () =>
    jsonRpcError(405, -32000, "Method not allowed: this MCP endpoint is stateless; POST only.");
  routes.get("/", notAllowed);
  routes.delete("/", notAllowed);

  return { routes, tools, discovery: mcpDiscovery(deps.config, tools) };
}
