// One POST /mcp answered by the MCP SDK: a server and a transport for the request (stateless, JSON answers).
// Imported by routes.ts on the first MCP request, so a server nobody asks over MCP never holds the SDK.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { DEFAULT_MAX_BODY_BYTES } from "../catalog/input.ts";
import { type CallDeps, callTool, PAYMENT_META_KEY, PAYMENT_RESPONSE_META_KEY } from "./call.ts";
import type { McpTool } from "./tools.ts";

export interface Offer {
  version: string;
  byName: Map<string, McpTool>;
  list: { tools: Tool[] };
}

const INSTRUCTIONS = `paycall: pay-per-call JSON data. Free tools answer at once. A paid tool called without payment returns isError with the x402 v2 payment requirements in content[0].text ({"x402/error": {"code": 402, "data": PaymentRequired}}); an x402 MCP client signs one of the accepts and repeats the call with the PaymentPayload in params._meta["${PAYMENT_META_KEY}"]. The settlement receipt comes back in result._meta["${PAYMENT_RESPONSE_META_KEY}"]. You are charged only for successful answers. Prices are in each tool's _meta["x402/price"].`;

/** A server for one request (stateless): it lists the tools and answers their calls through the HTTP app. */
function serverFor(deps: CallDeps, offer: Offer, c: Context): Server {
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

/** The SDK's answer to one MCP POST (CORS headers are added by the caller). */
export async function answerMcp(deps: CallDeps, offer: Offer, c: Context): Promise<Response> {
  const server = serverFor(deps, offer, c);
  const transport = new WebStandardStreamableHTTPServerTransport({
    enableJsonResponse: true,
    // A POST tool's body plus the JSON-RPC envelope and a payment payload.
    maxRequestBodySize: 2 * DEFAULT_MAX_BODY_BYTES,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(c.req.raw);
  } finally {
    await server.close();
  }
}
