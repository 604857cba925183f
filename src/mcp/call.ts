// One tools/call, paid per the x402 MCP transport (x402-foundation/x402 specs/transports-v2/mcp.md). The call is
// answered by the HTTP app itself (an in-process request with PAYMENT-SIGNATURE), so validation, the
// claim → verify → run → settle order, the ledger and the free-sample limit are the HTTP route's, unchanged.
// callTool says what happened (an answer, a refusal, or payment needed); bindings.ts puts it in the shape the
// client asked for (tool-result binding, or the org.x402/payment extension binding).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PaymentPayload, PaymentRequired, SettleResponse } from "@x402/core/types";
import { badRequest, type ErrorBody } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import { decodeHeaderJson, encodePaymentSignature } from "../x402/shared/header-codec.ts";
import { MCP_PATH, type McpTool, SAMPLE_ARGUMENT } from "./tools.ts";

export const PAYMENT_META_KEY = "x402/payment";
export const PAYMENT_RESPONSE_META_KEY = "x402/payment-response";

export interface CallDeps {
  config: Config;
  /** The HTTP app: `env` is the MCP request's, so the client's address (free-sample limit) is the same. */
  fetch: (request: Request, env: unknown) => Response | Promise<Response>;
}

export interface CallOrigin {
  env: unknown;
  forwardedFor?: string;
}

type HttpCall = { url: string; method: "GET" | "POST"; body?: string };

function textResult(value: unknown, isError: boolean, meta?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
    ...(isError ? { isError: true } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A refused argument: the same 400 body the HTTP route gives, nothing charged. */
function refuse(name: string, message: string): { refused: CallToolResult } {
  return { refused: textResult(badRequest(name, message).body, true, { "paycall/http-status": 400 }) };
}

/** The sample's value, given as the tool's typed argument (`lat: 40.7` for the sample's "40.7"). */
function sameValue(given: string, sample: string | undefined): boolean {
  if (sample === undefined) return false;
  return given === sample || (given.trim() !== "" && Number(given) === Number(sample));
}

/** The tool's arguments as the product's HTTP request: query parameters (GET) or the JSON body (POST). */
function httpCall(
  config: Config,
  tool: McpTool,
  args: Record<string, unknown>,
): { call: HttpCall } | { refused: CallToolResult } {
  const { method, path, product, mode } = tool.described;
  if (method === "POST") {
    const body = tool.argumentsAreBody ? args : args.body;
    return { call: { url: `${config.publicUrl}${path}`, method, body: JSON.stringify(body ?? null) } };
  }
  const params: Record<string, string> = {};
  let sample = false;
  for (const [name, value] of Object.entries(args)) {
    if (name === SAMPLE_ARGUMENT) {
      if (!tool.sampleable)
        return refuse(
          name,
          `${name}: this tool has no free sample (${mode === "free" ? "it is free" : "buy the call"})`,
        );
      if (typeof value !== "boolean") return refuse(name, `${name}: true or false`);
      sample = value;
      continue;
    }
    if (value === undefined || value === null) continue;
    if (typeof value === "string") params[name] = value;
    else if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean")
      params[name] = String(value);
    else return refuse(name, `${name}: must be a string, a number or a boolean`);
  }
  if (sample && product.sample) {
    const differs = Object.keys(params).find((k) => !sameValue(params[k] as string, product.sample?.[k]));
    if (differs !== undefined) {
      return refuse(
        SAMPLE_ARGUMENT,
        `${SAMPLE_ARGUMENT}: the free sample answers only ${JSON.stringify(product.sample)}; ${differs} differs (leave sample out to buy this call)`,
      );
    }
    Object.assign(params, product.sample, { sample: "1" });
  }
  const query = new URLSearchParams(params).toString();
  return { call: { url: `${config.publicUrl}${path}${query ? `?${query}` : ""}`, method } };
}

/**
 * The connections (the server's per-request env) of MCP requests: a route call made for a tool call names its
 * missing arguments (their schema is in tools/list), never answering the bare-request 402 an HTTP probe gets.
 * The env is passed on as it is, so the unpaid gate still knows the connection it counted.
 */
const mcpConnections = new WeakSet<object>();

export function isMcpCall(env: unknown): boolean {
  return typeof env === "object" && env !== null && mcpConnections.has(env);
}

function send(deps: CallDeps, call: HttpCall, origin: CallOrigin, payment?: unknown): Promise<Response> {
  if (typeof origin.env === "object" && origin.env !== null) mcpConnections.add(origin.env);
  const headers: Record<string, string> = { accept: "application/json" };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  if (origin.forwardedFor) headers["x-forwarded-for"] = origin.forwardedFor;
  if (payment !== undefined) headers["payment-signature"] = encodePaymentSignature(payment as PaymentPayload);
  return Promise.resolve(
    deps.fetch(new Request(call.url, { method: call.method, headers, body: call.body }), origin.env),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decodeOrUndefined<T>(decode: (header: string) => T, header: string | null): T | undefined {
  if (!header) return undefined;
  try {
    return decode(header);
  } catch {
    return undefined;
  }
}

/**
 * A 402's payment request: its JSON body carries the whole of it (every extension, the signed offers included),
 * the PAYMENT-REQUIRED header a copy cut to fit proxies' header buffers. The header only where the body lacks it.
 */
function paymentRequiredOf(response: Response, body: unknown): PaymentRequired | undefined {
  const whole = body as Partial<PaymentRequired> | undefined;
  if (
    whole &&
    typeof whole === "object" &&
    whole.x402Version === 2 &&
    Array.isArray(whole.accepts) &&
    whole.resource
  ) {
    const { x402Version, error, resource, accepts, extensions } = whole as PaymentRequired;
    return {
      x402Version,
      ...(error ? { error } : {}),
      resource,
      accepts,
      ...(extensions ? { extensions } : {}),
    };
  }
  return decodeOrUndefined(decodeHeaderJson<PaymentRequired>, response.headers.get("payment-required"));
}

/** The HTTP 402's requirements, as the MCP tool's: the MCP endpoint as resource, the tool's Bazaar declaration. */
function forTool(deps: CallDeps, tool: McpTool, required: PaymentRequired): PaymentRequired {
  return {
    ...required,
    resource: { ...required.resource, url: `${deps.config.publicUrl}${MCP_PATH}` },
    extensions: { ...required.extensions, ...tool.extensions },
  };
}

/** The call needs a (new) payment: nothing was delivered; `settlement` when a settle was tried and failed. */
export interface PaymentNeeded {
  paymentRequired: PaymentRequired;
  /** For people and models reading the result: what it costs, or why the payment was refused. */
  message: string;
  settlement?: SettleResponse;
}

export type ToolOutcome = { result: CallToolResult } | { payment: PaymentNeeded };

function paymentRequiredOutcome(tool: McpTool, required: PaymentRequired, body: unknown): ToolOutcome {
  const price = tool.described.price.priceUsd;
  const sample = tool.sampleable ? ` Or call it with ${SAMPLE_ARGUMENT}=true for the free sample.` : "";
  const message =
    required.error === "payment_required"
      ? `This call costs ${price} USD in USDC. Pay with x402 and repeat it with the PaymentPayload in _meta["${PAYMENT_META_KEY}"].${sample}`
      : String((body as Partial<ErrorBody> | undefined)?.message ?? required.error ?? "Payment required");
  return { payment: { paymentRequired: required, message } };
}

async function settlementFailedOutcome(
  deps: CallDeps,
  tool: McpTool,
  call: HttpCall,
  origin: CallOrigin,
  settlement: SettleResponse,
  body: unknown,
): Promise<ToolOutcome> {
  // The settle 402 carries no requirements: the same request unpaid gives them (a new payment is needed).
  const challenge = await send(deps, call, origin);
  const required = paymentRequiredOf(challenge, parseJson(await challenge.text()));
  const reason = settlement.errorReason ?? "settlement_failed";
  const paymentRequired: PaymentRequired = {
    ...(required
      ? forTool(deps, tool, required)
      : { x402Version: 2, resource: { url: `${deps.config.publicUrl}${MCP_PATH}` }, accepts: [] }),
    error: reason,
  };
  const detail = String((body as Partial<ErrorBody> | undefined)?.message ?? reason);
  return { payment: { paymentRequired, message: `Payment settlement failed: ${detail}`, settlement } };
}

export async function callTool(
  deps: CallDeps,
  tool: McpTool,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  origin: CallOrigin,
): Promise<ToolOutcome> {
  const built = httpCall(deps.config, tool, args);
  if ("refused" in built) return { result: built.refused };
  const { call } = built;
  const payment = meta?.[PAYMENT_META_KEY];
  const response = await send(deps, call, origin, payment);
  const text = await response.text();
  const body = parseJson(text);

  if (response.status === 200) {
    const settlement = decodeOrUndefined(
      decodeHeaderJson<SettleResponse>,
      response.headers.get("payment-response"),
    );
    return {
      result: {
        content: [{ type: "text", text }],
        ...(body && typeof body === "object" ? { structuredContent: body as Record<string, unknown> } : {}),
        ...(settlement ? { _meta: { [PAYMENT_RESPONSE_META_KEY]: settlement } } : {}),
      },
    };
  }
  if (response.status === 402) {
    const required = paymentRequiredOf(response, body);
    if (required) return paymentRequiredOutcome(tool, forTool(deps, tool, required), body);
    const settlement = decodeOrUndefined(
      decodeHeaderJson<SettleResponse>,
      response.headers.get("payment-response"),
    );
    if (settlement) return settlementFailedOutcome(deps, tool, call, origin, settlement, body);
  }
  // Refused before payment (400, 404 not found or queued, 503 …) or not settled: the route's JSON error.
  return { result: textResult(body ?? text, true, { "paycall/http-status": response.status }) };
}
