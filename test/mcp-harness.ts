// MCP test helpers: the SDK's real client over Streamable HTTP, and a buyer signing x402 payments for tools.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { PrivateKeyAccount } from "viem/accounts";

export async function connectMcp(serviceUrl: string): Promise<Client> {
  const client = new Client({ name: "paycall-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serviceUrl}/mcp`)));
  // Lists the tools once, as an agent does: the client then checks every answer against its output schema.
  await client.listTools();
  return client;
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  payment?: PaymentPayload,
): Promise<CallToolResult> {
  return (await client.callTool({
    name,
    arguments: args,
    ...(payment ? { _meta: { "x402/payment": payment } } : {}),
  })) as CallToolResult;
}

/**
 * One `tools/call` POSTed to the service's /mcp as a client of MCP 2026-07-28 sends it (no session; the protocol
 * version and the client's capabilities in `_meta`, with `meta`'s entries): the JSON-RPC `result`.
 */
export async function postToolsCall(
  serviceUrl: string,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const response = await fetch(`${serviceUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          ...meta,
        },
      },
    }),
  });
  return ((await response.json()) as { result: Record<string, any> }).result;
}

export function firstText(result: CallToolResult): string {
  const item = result.content[0];
  if (item?.type !== "text") throw new Error("the result has no text content");
  return item.text;
}

/** The x402 MCP transport's `{"x402/error": {code, message, data}}` of an error result. */
export function x402Error(result: CallToolResult): { code: number; message: string; data: PaymentRequired } {
  const parsed = JSON.parse(firstText(result)) as Record<string, unknown>;
  const error = parsed["x402/error"] as { code: number; message: string; data: PaymentRequired } | undefined;
  if (!error) throw new Error(`not an x402 error: ${firstText(result).slice(0, 200)}`);
  return error;
}

/** What a paying x402 MCP client does with the requirements: sign one of the accepts. */
export function signPayment(buyer: PrivateKeyAccount, required: PaymentRequired): Promise<PaymentPayload> {
  return new x402Client().register("eip155:*", new ExactEvmScheme(buyer)).createPaymentPayload(required);
}
