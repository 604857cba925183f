// Every code a JSON error answer carries in its `error` field, with its HTTP status and the message it says when
// the caller has nothing more particular to say: a new code is added here, and every answer takes its code, and
// its status, from here. (A 402's code is the challenge's; the facilitator's own refusal reasons pass through.)
import { jsonResponse } from "./responses.ts";

interface ErrorBody {
  error: string;
  message: string;
  charged: false;
  [extra: string]: unknown;
}

/** A product's answer that is not a 2xx: never charged. */
export interface ErrorOutcome {
  status: 400 | 404 | 409 | 422 | 502 | 503;
  body: ErrorBody;
}

interface ErrorKind {
  status: number;
  message: string;
}

export const ERRORS = {
  // The request
  invalid_parameter: { status: 400, message: "A parameter is not valid; nothing was charged." },
  body_incomplete: { status: 400, message: "The body ended early." },
  body_too_large: { status: 413, message: "The body is too large; nothing was charged." },
  query_too_broad: { status: 400, message: "The upstream refuses so broad a query; nothing was charged." },
  series_not_for_sale: { status: 400, message: "This series is not for sale here; nothing was charged." },
  ambiguous_id: { status: 409, message: "The id names several items; ask again with one of them." },
  not_found: { status: 404, message: "Not found; nothing was charged." },
  unsupported_tld: { status: 404, message: "This top-level domain has no RDAP service known here." },
  not_cached: { status: 404, message: "Not cached yet: it has been queued; nothing was charged." },
  // Limits on unpaid use
  rate_limited: { status: 429, message: "Too many requests without payment; nothing was charged." },
  sample_limit: {
    status: 429,
    message: "The free sample's hourly limit is reached; buy the call or retry later.",
  },
  too_many_sign_in_failures: { status: 429, message: "Too many failed sign-ins from this client." },
  forbidden: { status: 403, message: "Not for this caller." },
  // Payment
  payment_required: { status: 402, message: "This call is paid for: see the PAYMENT-REQUIRED header." },
  invalid_payment_header: {
    status: 402,
    message: "The PAYMENT-SIGNATURE header is not base64-encoded x402 JSON.",
  },
  no_matching_requirements: {
    status: 402,
    message:
      "The payment does not match what this request costs (network, asset, amount, payTo or scheme differ).",
  },
  invalid_payment: { status: 402, message: "The facilitator refused the payment." },
  settlement_failed: { status: 402, message: "The payment could not be settled; no data was delivered." },
  payer_unknown: { status: 422, message: "The payment names no payer address; nothing was charged." },
  payment_identifier_conflict: {
    status: 409,
    message:
      "This payment identifier was already used by this wallet for a different request; nothing was charged. Use a new payment identifier for a new request.",
  },
  payment_in_progress: {
    status: 409,
    message:
      "The first request with this payment identifier has not finished (it is being answered, or its settlement is being confirmed); nothing was charged for this one. Retry after Retry-After seconds with the same payment identifier, best with that first request's PAYMENT-SIGNATURE.",
  },
  payment_confirming: {
    status: 503,
    message:
      "Your payment is being confirmed on chain; it is not settled again. Retry this request with the same PAYMENT-SIGNATURE after Retry-After seconds: once the chain shows the payment you get the answer, and if it never settles nothing is charged.",
  },
  settlement_unknown: {
    status: 502,
    message:
      "The facilitator did not confirm the settlement. No data was delivered and the payment is not settled again: retry this request with the same PAYMENT-SIGNATURE. Once the chain shows the payment you get the answer; if it never settles, nothing is charged.",
  },
  payments_busy: {
    status: 503,
    message:
      "This server is answering as many paid calls as it takes at once; your payment was not verified and nothing was charged. Send the same request with the same PAYMENT-SIGNATURE again after Retry-After seconds.",
  },
  facilitator_unavailable: {
    status: 502,
    message: "The payment facilitator did not answer the verification; nothing was charged. Try again.",
  },
  facilitators_down: {
    status: 503,
    message:
      "No payment facilitator is answering now; nothing was charged. Retry with the same payment after Retry-After seconds.",
  },
  not_refund_due: { status: 409, message: "This ledger row is not owed a refund." },
  already_refunded: { status: 409, message: "This ledger row was already refunded." },
  // The service and its upstreams
  // 503; 502 where the upstream answered with a failure of the call itself (the chat model).
  upstream_unavailable: { status: 503, message: "The upstream did not answer; nothing was charged." },
  upstream_busy: { status: 503, message: "The upstream is rate-limiting this service; nothing was charged." },
  list_not_loaded: { status: 503, message: "The list is not loaded yet; nothing was charged." },
  not_configured: { status: 503, message: "Disabled on this server; nothing was charged." },
  test_buy_unavailable: { status: 503, message: "The test buy cannot be made now; nothing was charged." },
  answer_unavailable: {
    status: 503,
    message:
      "The answer paid for with this payment identifier cannot be read back on this server; this request was not charged. Contact the operator with your PAYMENT-RESPONSE.",
  },
  answer_too_slow: {
    status: 504,
    message:
      "The answer took too long to be settled before your payment authorization expires; nothing was charged. Try again.",
  },
  store_unavailable: {
    status: 503,
    message:
      "The service's database is unavailable (unreachable, or its disk is full); nothing was charged. Retry after Retry-After seconds.",
  },
  starting: { status: 503, message: "paycall is starting; retry shortly." },
  payments_starting: {
    status: 503,
    message: "Payments are not ready yet (syncing with the facilitator); retry shortly.",
  },
  internal_error: { status: 500, message: "The request failed on our side; nothing was charged." },
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes a handler may answer with (its outcome's statuses). */
type OutcomeErrorCode = {
  [C in ErrorCode]: (typeof ERRORS)[C]["status"] extends ErrorOutcome["status"] ? C : never;
}[ErrorCode];

/** A JSON error answer's body: the code, its message (the code's own unless given), nothing charged, then `extra`. */
export function errorBody(
  code: ErrorCode,
  message: string = ERRORS[code].message,
  extra: Record<string, unknown> = {},
): ErrorBody {
  return { error: code, message, charged: false, ...extra };
}

/** A handler's error outcome, its status the code's unless `status` says otherwise. */
export function errorOutcome(
  code: OutcomeErrorCode,
  message?: string,
  extra: Record<string, unknown> = {},
  status: ErrorOutcome["status"] = ERRORS[code].status,
): ErrorOutcome {
  return { status, body: errorBody(code, message, extra) };
}

/** An error answer as a response, its status the code's; `extra` may say `charged` otherwise (true, "unknown"). */
export function errorResponse(
  code: ErrorCode,
  message?: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(ERRORS[code].status, errorBody(code, message, extra), headers);
}
