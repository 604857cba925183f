// Two paying MCP clients, each finding the payment requirements in an unpaid call's result by one published
// rule, so the tests show that paycall's one answer is payable by both kinds of client in the field.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import type { PrivateKeyAccount } from "viem/accounts";
import { signPayment } from "./mcp-harness.ts";

/**
 * The x402 MCP transport spec's rule (x402-foundation/x402 specs/transports-v2/mcp.md, "Client Requirements"):
 * "1. Check if result.structuredContent exists and contains x402Version and accepts fields
 *  2. If not, parse result.content[0].text as JSON and check for the same fields".
 */
export function specRule(result: CallToolResult): PaymentRequired | null {
  const hasFields = (value: unknown): value is PaymentRequired =>
    typeof value === "object" && value !== null && "x402Version" in value && "accepts" in value;
  if (hasFields(result.structuredContent)) return result.structuredContent;
  const first = result.content[0];
  if (first?.type !== "text") return null;
  try {
    const parsed: unknown = JSON.parse(first.text);
    return hasFields(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * coinbase/x402's earlier MCP client (typescript/packages/mcp/src/client/x402MCPClient.ts at commit 203abd81,
 * extractPaymentRequiredFromResult with isX402EmbeddedError): only when isError; content[0] must be text;
 * its JSON must hold "x402/error" with `code === 402`, a string `message` and an object `data`, which is taken
 * as the PaymentRequired. structuredContent is not read.
 */
export function earlierClientRule(result: CallToolResult): PaymentRequired | null {
  if (!result.isError) return null;
  const first = result.content[0];
  if (first?.type !== "text") return null;
  try {
    const parsed = JSON.parse(first.text) as Record<string, unknown> | null;
    const error = parsed?.["x402/error"] as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (typeof error !== "object" || error === null) return null;
    if (error.code !== 402 || typeof error.message !== "string") return null;
    if (typeof error.data !== "object" || error.data === null) return null;
    return error.data as PaymentRequired;
  } catch {
    return null;
  }
}

export type ExtractionRule = (result: CallToolResult) => PaymentRequired | null;

/** What both clients do: call, find the requirements by their rule, sign, call again with _meta["x402/payment"]. */
export async function buyTool(
  client: Client,
  rule: ExtractionRule,
  buyer: PrivateKeyAccount,
  name: string,
  args: Record<string, unknown>,
): Promise<{ required: PaymentRequired; paid: CallToolResult; settlement?: SettleResponse }> {
  const unpaid = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const required = rule(unpaid);
  if (!required) throw new Error(`no payment requirements found: ${JSON.stringify(unpaid).slice(0, 300)}`);
  const payment = await signPayment(buyer, required);
  const paid = (await client.callTool({
    name,
    arguments: args,
    _meta: { "x402/payment": payment },
  })) as CallToolResult;
  const settlement = paid._meta?.["x402/payment-response"] as SettleResponse | undefined;
  return { required, paid, ...(settlement ? { settlement } : {}) };
}
