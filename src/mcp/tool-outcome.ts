// A tool call's outcome (x402/seller/paid-call/outcome.ts) as MCP gives it: a tool result (an answer, or a
// refusal as an error result with the HTTP status the route would have answered), or a payment needed with
// the x402 PaymentRequired for this tool. bindings.ts puts either in the shape of the binding the client uses.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentRequired, SettleResponse } from "@x402/core/types";
import type { Config } from "../config.ts";
import type { ChallengeParts } from "../x402/seller/challenge.ts";
import type {
  AnswerOutcome,
  PaidOutcome,
  PaymentRequiredOutcome,
  SettlementFailedOutcome,
} from "../x402/seller/paid-call/outcome.ts";
import { decodeHeaderJson } from "../x402/shared/header-codec.ts";
import { MCP_PATH, type McpTool, SAMPLE_ARGUMENT } from "./tools.ts";

/** Where a tool call carries its PaymentPayload, and its result the settlement (x402 MCP transport). */
export const PAYMENT_META_KEY = "x402/payment";
export const PAYMENT_RESPONSE_META_KEY = "x402/payment-response";

/** The call needs a (new) payment: nothing was delivered; `settlement` when a settle was tried and failed. */
export interface PaymentNeeded {
  paymentRequired: PaymentRequired;
  /** For people and models reading the result: what it costs, or why the payment was refused. */
  message: string;
  settlement?: SettleResponse;
}

/**
 * A tool result; for an answer whose value the call has, also its JSON, written around the answer's text (the
 * JSON of structuredContent already) instead of encoding the answer again.
 */
export type ToolOutcome = { result: CallToolResult; json?: ResultJson } | { payment: PaymentNeeded };

/** The result's JSON as JSON.stringify gives it, `{ resultType, ...result }` when a resultType is given. */
export type ResultJson = (resultType?: string) => string;

export function textResult(value: unknown, isError: boolean, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
    ...(isError ? { isError: true } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

export function toolOutcome(config: Config, tool: McpTool, outcome: PaidOutcome): ToolOutcome {
  switch (outcome.kind) {
    case "answer":
      return answerResult(outcome);
    case "payment-required":
      return paymentRequired(config, tool, outcome);
    case "refusal":
      // Refused before payment (400, 404 not found or queued, 429, 503 …): the route's JSON error.
      return { result: textResult(outcome.body, true, { "paycall/http-status": outcome.status }) };
    case "settlement-failed":
      return settlementFailed(config, tool, outcome);
    default:
      return unknownOutcome(outcome);
  }
}

function unknownOutcome(outcome: never): never {
  throw new Error(`no MCP rendering for outcome ${JSON.stringify(outcome)}`);
}

function answerResult(outcome: AnswerOutcome): { result: CallToolResult; json?: ResultJson } {
  const { text, data } = outcome;
  const body = data !== undefined ? data : parseJson(text);
  const settlement =
    outcome.settlement ??
    (outcome.paymentResponse !== undefined
      ? decodeHeaderJson<SettleResponse>(outcome.paymentResponse)
      : undefined);
  const structured = body !== null && typeof body === "object";
  const meta = settlement ? { [PAYMENT_RESPONSE_META_KEY]: settlement } : undefined;
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    ...(structured ? { structuredContent: body as Record<string, unknown> } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
  // The text is JSON.stringify(data) (outcome.ts); a kept answer's text, parsed above, is encoded again.
  if (data === undefined || !structured) return { result };
  const json: ResultJson = (resultType) =>
    `{${resultType === undefined ? "" : `"resultType":${JSON.stringify(resultType)},`}"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${meta ? `,"_meta":${JSON.stringify(meta)}` : ""}}`;
  return { result, json };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A 402's payment request: its JSON body carries the whole of it (every extension, the signed offers included),
 * the PAYMENT-REQUIRED header a copy cut to fit proxies' header buffers.
 */
function paymentRequiredOf(challenge: ChallengeParts): { required: PaymentRequired; message?: unknown } {
  const { x402Version, error, resource, accepts, extensions, message } = JSON.parse(
    challenge.body,
  ) as PaymentRequired & { message?: unknown };
  return {
    required: {
      x402Version,
      ...(error ? { error } : {}),
      resource,
      accepts,
      ...(extensions ? { extensions } : {}),
    },
    message,
  };
}

/** The route's requirements as the MCP tool's: the MCP endpoint as resource, the tool's Bazaar declaration. */
function forTool(config: Config, tool: McpTool, required: PaymentRequired): PaymentRequired {
  return {
    ...required,
    resource: { ...required.resource, url: `${config.publicUrl}${MCP_PATH}` },
    extensions: { ...required.extensions, ...tool.extensions },
  };
}

function paymentRequired(config: Config, tool: McpTool, outcome: PaymentRequiredOutcome): ToolOutcome {
  const { required, message } = paymentRequiredOf(outcome.challenge);
  const price = tool.described.price.priceUsd;
  const sample = tool.sampleable ? ` Or call it with ${SAMPLE_ARGUMENT}=true for the free sample.` : "";
  return {
    payment: {
      paymentRequired: forTool(config, tool, required),
      message:
        required.error === "payment_required"
          ? `This call costs ${price} USD in USDC. Pay with x402 and repeat it with the PaymentPayload in _meta["${PAYMENT_META_KEY}"].${sample}`
          : String(message ?? required.error ?? "Payment required"),
    },
  };
}

/** A failed settle: the requirements of a new payment, the failure's reason as their error, the settlement. */
function settlementFailed(config: Config, tool: McpTool, outcome: SettlementFailedOutcome): ToolOutcome {
  const { settlement, body } = outcome;
  const reason = settlement.errorReason ?? "settlement_failed";
  const required = outcome.challenge ? paymentRequiredOf(outcome.challenge).required : undefined;
  const paymentRequired: PaymentRequired = {
    ...(required
      ? forTool(config, tool, required)
      : { x402Version: 2, resource: { url: `${config.publicUrl}${MCP_PATH}` }, accepts: [] }),
    error: reason,
  };
  return {
    payment: { paymentRequired, message: `Payment settlement failed: ${body.message ?? reason}`, settlement },
  };
}
