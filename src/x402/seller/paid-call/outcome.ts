// What a call to a product ends with, whatever carried it: the paid call's stages (charge.ts) and the route's
// unpaid checks (http/product-route.ts) return one of these, and each transport renders it in its own shape:
// http/render.ts as the Response (status, headers, bytes), mcp/tool-outcome.ts as the tool result of either MCP
// binding. No transport reads another's rendering back.
//
// A new way to pay adds a variant here (a voucher accepted for a batch, say): the renderers switch over `kind`
// with an exhaustive check, so the compiler names each place that must learn to render it, and nothing else
// changes.
import type { SettleResponse } from "@x402/core/types";
import { ERRORS, type ErrorCode, errorBody } from "../../../errors.ts";
import type { ChallengeParts } from "../challenge.ts";

/** The product's answer (200): free, a free sample, or paid and settled (`paymentResponse`). */
export interface AnswerOutcome {
  kind: "answer";
  /** The answer's JSON bytes as delivered (the ledger row and the receipt bind their digest). */
  text: string;
  /** The answer as a value, when the call has it (a kept answer has only its text). */
  data?: unknown;
  /** A paid answer: the PAYMENT-RESPONSE value, its receipt included. */
  paymentResponse?: string;
  /** The settlement as encoded in `paymentResponse`, when the call has it as a value. */
  settlement?: SettleResponse;
}

/** A payment is needed (none sent, or the one sent was refused before settlement): the 402 and its offers. */
export interface PaymentRequiredOutcome {
  kind: "payment-required";
  /** The 402 as built for the route: PAYMENT-REQUIRED and the JSON body with the whole PaymentRequired. */
  challenge: ChallengeParts;
  /** When retrying with the same payment may succeed (a payment held by a request still running). */
  retryAfterSec?: number;
}

/** Refused, nothing charged: a 4xx/5xx JSON error (bad input, rate limit, payments_busy, store_unavailable …). */
export interface RefusalOutcome {
  kind: "refusal";
  status: number;
  body: unknown;
  /** Retry-After, cache-control: what the HTTP answer carries besides the JSON headers. */
  headers: Record<string, string>;
}

/** The facilitator refused to settle: no data, nothing charged; a new payment answers `challenge`. */
export interface SettlementFailedOutcome {
  kind: "settlement-failed";
  settlement: SettleResponse;
  body: { x402Version: 2; error: string; message: string; charged: false };
  /** The route's 402 for this request, for transports that hand the requirements back with the failure. */
  challenge?: ChallengeParts;
}

export type PaidOutcome = AnswerOutcome | PaymentRequiredOutcome | RefusalOutcome | SettlementFailedOutcome;

export function refusal(status: number, body: unknown, headers: Record<string, string> = {}): RefusalOutcome {
  return { kind: "refusal", status, body, headers };
}

/** A JSON error by its code (errors.ts), as errorResponse makes it. */
export function errorRefusal(
  code: ErrorCode,
  message?: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): RefusalOutcome {
  return refusal(ERRORS[code].status, errorBody(code, message, extra), headers);
}

/** A handler's outcome: its 200 as an answer; any other status refused, a queued 404 or a 503 with Retry-After. */
export function handlerOutcome(outcome: { status: number; body: unknown }): AnswerOutcome | RefusalOutcome {
  if (outcome.status === 200)
    return { kind: "answer", text: JSON.stringify(outcome.body), data: outcome.body };
  const retryAfter =
    outcome.status === 404 || outcome.status === 503
      ? (outcome.body as { retryAfterSec?: unknown }).retryAfterSec
      : undefined;
  return refusal(
    outcome.status,
    outcome.body,
    typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : {},
  );
}

/** A paid answer, first delivery or a retry's. */
export function paidAnswer(
  answer: { body: string; paymentResponse: string },
  data?: unknown,
  settlement?: SettleResponse,
): AnswerOutcome {
  return {
    kind: "answer",
    text: answer.body,
    paymentResponse: answer.paymentResponse,
    ...(data !== undefined ? { data } : {}),
    ...(settlement ? { settlement } : {}),
  };
}

/** The HTTP status the outcome is answered with (for logs of transports that have none). */
export function statusOf(outcome: PaidOutcome): number {
  if (outcome.kind === "answer") return 200;
  if (outcome.kind === "refusal") return outcome.status;
  return 402;
}

/**
 * A JSON error answer made as a Response by a module outside the call (the unpaid gate's 429, the chain's
 * "confirming" 503), as a refusal: the same status, body and headers.
 */
export async function refusalOf(response: Response): Promise<RefusalOutcome> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return refusal(response.status, await response.json(), headers);
}
