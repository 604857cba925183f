// One POST /mcp of an earlier MCP revision answered by the MCP SDK: a server and a transport for the request
// (stateless, JSON answers). Imported by routes.ts on the first such request, so a server nobody asks over MCP
// never holds the SDK.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { toolResultBinding } from "./bindings.ts";
import { type CallDeps, callTool } from "./call.ts";
import { SERVER_NAME } from "./direct.ts";
import type { Offer } from "./offer.ts";

/** A server for one request (stateless): it lists the tools and answers their calls through the HTTP app. */
function serverFor(deps: CallDeps, offer: Offer, instructions: string, c: Context): Server {
  const server = new Server(
    { name: SERVER_NAME, version: offer.version },
    { capabilities: { tools: { listChanged: false } }, instructions },
  );
  // A batch's tools/list (a single one is answered from the prepared bytes, direct.ts).
  server.setRequestHandler(ListToolsRequestSchema, () => offer.list);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = offer.byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; see tools/list`);
    }
    const outcome = await callTool(deps, tool, request.params.arguments ?? {}, request.params._meta, c);
    return toolResultBinding(outcome);
  });
  return server;
}

/** The SDK's answer to one MCP POST (CORS headers are added by the caller). */
export async function answerMcp(
  deps: CallDeps,
  offer: Offer,
  instructions: string,
  c: Context,
  parsedBody: unknown,
  maxRequestBodySize: number,
): Promise<Response> {
  const server = serverFor(deps, offer, instructions, c);
  const transport = new WebStandardStreamableHTTPServerTransport({
    enableJsonResponse: true,
    maxRequestBodySize,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(c.req.raw, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await server.close();
  }
}
