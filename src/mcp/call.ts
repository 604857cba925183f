// One tools/call, paid per the x402 MCP transport (x402-foundation/x402 specs/transports-v2/mcp.md). The call
// runs the product route's own stages (http/product-route.ts) in process, with the MCP request as the client's
// request: validation, the unpaid gate, the free-sample limit, the claim → verify → run → settle order and the
// ledger are the HTTP route's. The payment is the PaymentPayload of `_meta`, as it came. The stages' outcome
// becomes what the tool returns (tool-outcome.ts), and bindings.ts puts that in the shape the client asked for
// (tool-result binding, or the org.x402/payment extension binding).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { badRequest } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import type { ProductRoute, RouteInput } from "../http/product-route.ts";
import { errorText } from "../json.ts";
import type { Logger } from "../log.ts";
import { errorRefusal, type PaidOutcome, statusOf } from "../x402/seller/paid-call/outcome.ts";
import { storeFailureAnswer } from "../x402/seller/paid-call/store-ready.ts";
import { PAYMENT_META_KEY, type ToolOutcome, textResult, toolOutcome } from "./tool-outcome.ts";
import { type McpTool, SAMPLE_ARGUMENT } from "./tools.ts";

export interface CallDeps {
  config: Config;
  log: Logger;
  /** The stages of a product's route, by sku. */
  route: (sku: string) => ProductRoute["call"] | undefined;
}

type HttpCall = { url: string; method: "GET" | "POST"; body?: string };

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
  const query = queryString(params);
  return { call: { url: `${config.publicUrl}${path}${query ? `?${query}` : ""}`, method } };
}

/** What URLSearchParams leaves as it is: most arguments (`USD`, `40.7`, `2026-08-17`) are written as given. */
const UNESCAPED = /^[\w.*-]*$/;

/** The arguments as URLSearchParams writes them, without building one for arguments that need no escaping. */
function queryString(params: Record<string, string>): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (!UNESCAPED.test(name) || !UNESCAPED.test(value)) return new URLSearchParams(params).toString();
    pairs.push(`${name}=${value}`);
  }
  return pairs.join("&");
}

/** The route's input for a tool call: the MCP request as the client's, the tool's call as the product's URL. */
function routeInput(c: Context, call: HttpCall, payment: unknown): RouteInput {
  return {
    c,
    url: call.url,
    body:
      call.body === undefined
        ? undefined
        : new Request(call.url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: call.body,
          }),
    payment: payment === undefined ? undefined : { payload: payment },
    coldProbes: false,
  };
}

export async function callTool(
  deps: CallDeps,
  tool: McpTool,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  c: Context,
): Promise<ToolOutcome> {
  const built = httpCall(deps.config, tool, args);
  if ("refused" in built) return { result: built.refused };
  const route = deps.route(tool.described.sku);
  if (!route) throw new Error(`no route for tool ${tool.name}`);
  let outcome: PaidOutcome;
  try {
    outcome = await route(routeInput(c, built.call, meta?.[PAYMENT_META_KEY]));
  } catch (error) {
    // What the HTTP app's error handler answers a route that threw.
    outcome = storeFailureAnswer(error) ?? unhandled(deps, tool, error);
  }
  logCall(deps.log, tool, outcome);
  return toolOutcome(deps.config, tool, outcome);
}

/** The tool call's line beside its /mcp request's, as a product request has its own. */
function logCall(log: Logger, tool: McpTool, outcome: PaidOutcome): void {
  if (!log.isLevelEnabled("info")) return;
  const payer = outcome.kind === "answer" ? outcome.settlement?.payer : undefined;
  log.info(
    {
      tool: tool.name,
      sku: tool.described.sku,
      status: statusOf(outcome),
      charged: outcome.kind === "answer" && outcome.paymentResponse !== undefined,
      ...(payer ? { payer } : {}),
    },
    "tool call",
  );
}

function unhandled(deps: CallDeps, tool: McpTool, error: unknown): PaidOutcome {
  deps.log.error({ err: errorText(error), path: tool.described.path }, "unhandled error");
  return errorRefusal("internal_error");
}
