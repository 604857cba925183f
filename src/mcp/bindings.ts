// A tool call's outcome in the shapes of the x402 MCP transport (x402-foundation/x402
// specs/transports-v2/mcp.md), which defines two bindings:
//
// Tool-result binding (every MCP revision): "Servers MUST provide the PaymentRequired in both formats:
// structuredContent (REQUIRED): Direct PaymentRequired object; content[0].text (REQUIRED): JSON-encoded string
// of the same PaymentRequired object", with isError: true; "On MCP 2026-07-28, a tool-result response MUST
// include resultType: "complete"". A failed settlement "follows the same format as Payment Required
// Signaling ... the server should not return the tool's content - only the payment error".
//
// Clients built on coinbase/x402's earlier MCP client (typescript/packages/mcp/src/client/x402MCPClient.ts,
// extractPaymentRequiredFromResult, e.g. at commit 203abd81) read neither: they parse content[0].text and take
// `["x402/error"].data` when `["x402/error"]` has `code === 402`, a string `message` and an object `data`.
// One object satisfies both rules: the PaymentRequired with an added "x402/error" member (the spec's
// clients check for x402Version and accepts, and parse PaymentRequired with a schema that ignores unknown
// members). Its `data` repeats the PaymentRequired without `extensions` (the Bazaar declaration, which is
// large and needed once): an earlier client's payment then echoes no extensions, which paying does not need.
//
// Extension binding (MCP 2026-07-28 with `org.x402/payment` in the request's client capabilities): an unpaid
// call answers `{ resultType: "payment_required", paymentRequired }`; "When a SettlementResponse is
// available, the server SHOULD include it in result._meta["x402/payment-response"]".
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PAYMENT_RESPONSE_META_KEY, type PaymentNeeded, type ToolOutcome } from "./tool-outcome.ts";

/** The extension identifier a client advertises in `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`. */
export const X402_EXTENSION = "org.x402/payment";
/** The earlier MCP client's key in content[0].text. */
const EARLIER_ERROR_KEY = "x402/error";

function settlementMeta(payment: PaymentNeeded): Record<string, unknown> | undefined {
  return payment.settlement ? { [PAYMENT_RESPONSE_META_KEY]: payment.settlement } : undefined;
}

/** The PaymentRequired as the tool-result binding's structuredContent, readable by the earlier client too. */
function paymentRequiredContent(payment: PaymentNeeded): Record<string, unknown> {
  const { extensions: _bazaar, ...data } = payment.paymentRequired;
  return {
    ...payment.paymentRequired,
    [EARLIER_ERROR_KEY]: { code: 402, message: payment.message, data },
  };
}

/** The tool-result binding: a payment needed is an error result carrying the PaymentRequired twice. */
export function toolResultBinding(outcome: ToolOutcome): CallToolResult {
  if ("result" in outcome) return outcome.result;
  const content = paymentRequiredContent(outcome.payment);
  const meta = settlementMeta(outcome.payment);
  return {
    isError: true,
    structuredContent: content,
    content: [{ type: "text", text: JSON.stringify(content) }],
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A tools/call result on MCP 2026-07-28: the extension binding when the request advertised it. */
export function modernCallResult(outcome: ToolOutcome, extension: boolean): Record<string, unknown> {
  if (extension && "payment" in outcome) {
    const meta = settlementMeta(outcome.payment);
    return {
      resultType: "payment_required",
      paymentRequired: outcome.payment.paymentRequired,
      ...(meta ? { _meta: meta } : {}),
    };
  }
  return { resultType: "complete", ...toolResultBinding(outcome) };
}

/** JSON.stringify(toolResultBinding(outcome)), an answer's written around its text. */
export function toolResultJson(outcome: ToolOutcome): string {
  return "result" in outcome && outcome.json ? outcome.json() : JSON.stringify(toolResultBinding(outcome));
}

/** JSON.stringify(modernCallResult(outcome, extension)), an answer's written around its text. */
export function modernCallResultJson(outcome: ToolOutcome, extension: boolean): string {
  if ("result" in outcome && outcome.json) return outcome.json("complete");
  return JSON.stringify(modernCallResult(outcome, extension));
}
