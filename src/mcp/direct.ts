// The MCP requests paycall answers itself, before the SDK (which is loaded only for the others):
//  - tools/list, from the bytes prepared once (offer.ts), on every MCP revision;
//  - every request of MCP 2026-07-28, the stateless revision the SDK here does not speak: no initialize, each
//    request carries `_meta["io.modelcontextprotocol/protocolVersion"]` and the client's capabilities;
//    `server/discover` says what the server supports; every result has a `resultType`.
//  - a well-formed tools/call of an earlier revision for a known tool, in the SDK's envelope.
// Batches, initialize and the other methods of earlier revisions go to the SDK, with the body parsed here.

import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { CORS_HEADERS } from "../responses.ts";
import { modernCallResultJson, toolResultJson, X402_EXTENSION } from "./bindings.ts";
import { type CallDeps, callTool } from "./call.ts";
import type { Offer } from "./offer.ts";
import type { ReadBody } from "./unpaid-messages.ts";

const MODERN_PROTOCOL = "2026-07-28";
/** The revisions the SDK's transport accepts in MCP-Protocol-Version (its SUPPORTED_PROTOCOL_VERSIONS; a test keeps them equal). */
export const LEGACY_PROTOCOLS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
const PROTOCOL_META = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities";

export const SERVER_NAME = "paycall";

type Id = string | number;
interface Message {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: { _meta?: Record<string, unknown>; [key: string]: unknown };
}

type DirectAnswer = { response: Response } | { parsedBody: unknown };

/**
 * With the CORS headers already: wrapping a response afterwards would turn its string body into a stream, which
 * the server writes out far more slowly.
 */
function jsonResponse(status: number, body: string | Blob): Response {
  return new Response(body, { status, headers: { "content-type": "application/json", ...CORS_HEADERS } });
}

function jsonRpcError(status: number, id: Id | null, code: number, message: string): Response {
  return jsonResponse(status, JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }));
}

function jsonRpcResult(id: Id, result: unknown): Response {
  return jsonResponse(200, JSON.stringify({ jsonrpc: "2.0", id, result }));
}

/** A result already serialized: the envelope is written around its bytes. */
function jsonRpcPreparedResult(id: Id, result: Uint8Array): Response {
  const body = new Blob([
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`,
    result as Uint8Array<ArrayBuffer>,
    "}",
  ]);
  return jsonResponse(200, body);
}

function isJsonContentType(value: string | null): boolean {
  return value?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/** The body as read (routes.ts), up to `limit` bytes; the errors are the SDK transport's own (status, code and wording). */
function readJson(
  request: Request,
  limit: number,
  read: ReadBody,
): { body: unknown } | { response: Response } {
  if (Number(request.headers.get("content-length") ?? 0) > limit || Buffer.byteLength(read.text) > limit) {
    return {
      response: jsonRpcError(
        413,
        null,
        -32000,
        `Payload Too Large: Request body must not exceed ${limit} bytes`,
      ),
    };
  }
  return read.json ? { body: read.json.value } : parseError();
}

function parseError(): { response: Response } {
  return { response: jsonRpcError(400, null, -32700, "Parse error: Invalid JSON") };
}

function isRequest(message: Message): message is Message & { id: Id; method: string } {
  return (
    message.jsonrpc === "2.0" &&
    typeof message.method === "string" &&
    (typeof message.id === "string" || typeof message.id === "number")
  );
}

function isModern(request: Request, message: Message): boolean {
  return (
    message.params?._meta?.[PROTOCOL_META] === MODERN_PROTOCOL ||
    request.headers.get("mcp-protocol-version") === MODERN_PROTOCOL
  );
}

function advertisesExtension(message: Message): boolean {
  const capabilities = message.params?._meta?.[CAPABILITIES_META] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const extensions = capabilities?.extensions;
  return typeof extensions === "object" && extensions !== null && X402_EXTENSION in extensions;
}

function acceptsJson(request: Request, both: boolean): boolean {
  const accept = request.headers.get("accept") ?? "";
  // The SDK's transport rule for earlier revisions: both types listed (a substring check, as it does).
  if (both) return accept.includes("application/json") && accept.includes("text/event-stream");
  return accept === "" || accept.includes("application/json") || accept.includes("*/*");
}

interface ModernDeps {
  deps: CallDeps;
  offer: Offer;
  instructions: string;
}

async function answerModern(
  { deps, offer, instructions }: ModernDeps,
  c: Context,
  message: Message & { id: Id; method: string },
): Promise<Response> {
  switch (message.method) {
    case "server/discover": {
      const capabilities: ServerCapabilities & { extensions: Record<string, object> } = {
        tools: { listChanged: false },
        extensions: { [X402_EXTENSION]: {} },
      };
      const serverInfo = { name: SERVER_NAME, version: offer.version };
      // serverInfo at the top (MCP's server/discover page) and in _meta (the x402 MCP transport's example).
      return jsonRpcResult(message.id, {
        resultType: "complete",
        supportedVersions: [MODERN_PROTOCOL],
        capabilities,
        serverInfo,
        instructions,
        _meta: { "io.modelcontextprotocol/serverInfo": serverInfo },
      });
    }
    case "tools/list":
      if (message.params?.cursor !== undefined)
        return jsonRpcError(200, message.id, -32602, "Invalid cursor: tools/list has one page");
      return jsonRpcPreparedResult(message.id, offer.listBytes.modern);
    case "tools/call": {
      const name = message.params?.name;
      const tool = typeof name === "string" ? offer.byName.get(name) : undefined;
      if (!tool) return jsonRpcError(200, message.id, -32602, `Unknown tool ${String(name)}; see tools/list`);
      const args = message.params?.arguments ?? {};
      if (typeof args !== "object" || args === null || Array.isArray(args))
        return jsonRpcError(200, message.id, -32602, "arguments: must be an object");
      const outcome = await callTool(deps, tool, args as Record<string, unknown>, message.params?._meta, c);
      const result = modernCallResultJson(outcome, advertisesExtension(message));
      return jsonResponse(200, `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${result}}`);
    }
    default:
      return jsonRpcError(200, message.id, -32601, `Method not found: ${message.method}`);
  }
}

/**
 * Answers the POST itself when it can (tools/list, MCP 2026-07-28); otherwise gives the parsed body to pass to
 * the SDK. A body that is not JSON is left to the SDK unread, so its checks answer in their order.
 */
export async function answerDirect(
  modern: ModernDeps,
  c: Context,
  limit: number,
  body: ReadBody,
): Promise<DirectAnswer> {
  const request = c.req.raw;
  if (!isJsonContentType(request.headers.get("content-type"))) return { parsedBody: undefined };
  const read = readJson(request, limit, body);
  if ("response" in read) return read;
  const message = read.body as Message;
  if (Array.isArray(message) || typeof message !== "object" || message === null)
    return { parsedBody: read.body };
  if (isModern(request, message)) {
    if (!acceptsJson(request, false))
      return {
        response: jsonRpcError(406, null, -32000, "Not Acceptable: Client must accept application/json"),
      };
    if (isRequest(message)) return { response: await answerModern(modern, c, message) };
    const notification =
      message.jsonrpc === "2.0" && typeof message.method === "string" && !("id" in message);
    if (notification) return { response: new Response(null, { status: 202, headers: CORS_HEADERS }) };
    return { response: jsonRpcError(400, null, -32600, "Invalid Request: not a JSON-RPC 2.0 request") };
  }
  const version = request.headers.get("mcp-protocol-version");
  const legacyOk = version === null || LEGACY_PROTOCOLS.includes(version);
  if (isRequest(message) && legacyOk && acceptsJson(request, true)) {
    if (message.method === "tools/list") {
      if (message.params?.cursor !== undefined)
        return { response: jsonRpcError(200, message.id, -32602, "Invalid cursor: tools/list has one page") };
      return { response: jsonRpcPreparedResult(message.id, modern.offer.listBytes.legacy) };
    }
    if (message.method === "tools/call") {
      const answered = await answerLegacyCall(modern, c, message);
      if (answered) return { response: answered };
    }
  }
  return { parsedBody: read.body };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A well-formed tools/call of an earlier revision, for a tool that exists: answered as the SDK's stateless
 * server answers it (the same result, in its envelope), without building a server and a transport per call.
 * Anything else (an unknown tool, malformed params) goes to the SDK, so its errors stay its own.
 */
async function answerLegacyCall(
  { deps, offer }: ModernDeps,
  c: Context,
  message: Message & { id: Id; method: string },
): Promise<Response | undefined> {
  const params = message.params;
  if (!isPlainObject(params) || typeof params.name !== "string") return undefined;
  const tool = offer.byName.get(params.name);
  const args = params.arguments ?? {};
  if (!tool || !isPlainObject(args) || (params._meta !== undefined && !isPlainObject(params._meta)))
    return undefined;
  const outcome = await callTool(deps, tool, args, params._meta, c);
  // The SDK's envelope: result first.
  return jsonResponse(
    200,
    `{"result":${toolResultJson(outcome)},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`,
  );
}
