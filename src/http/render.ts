// A call's outcome (x402/seller/paid-call/outcome.ts) as the HTTP answer: status, headers and bytes.
import { JSON_HEADERS, jsonResponse } from "../responses.ts";
import { challengeResponse } from "../x402/seller/challenge.ts";
import type { PaidOutcome } from "../x402/seller/paid-call/outcome.ts";
import { paidAnswerResponse } from "../x402/seller/retries/paid-answers.ts";
import { encodePaymentResponse } from "../x402/shared/header-codec.ts";

export function httpResponse(outcome: PaidOutcome): Response {
  switch (outcome.kind) {
    case "answer":
      if (outcome.paymentResponse !== undefined) {
        return paidAnswerResponse({ body: outcome.text, paymentResponse: outcome.paymentResponse });
      }
      return new Response(outcome.text, { status: 200, headers: { ...JSON_HEADERS } });
    case "payment-required": {
      const response = challengeResponse(outcome.challenge);
      if (outcome.retryAfterSec !== undefined) {
        response.headers.set("retry-after", String(outcome.retryAfterSec));
      }
      return response;
    }
    case "refusal":
      return jsonResponse(outcome.status, outcome.body, outcome.headers);
    case "settlement-failed":
      // The requirements are not repeated: the buyer's 402 had them, and a new payment asks again.
      return jsonResponse(402, outcome.body, {
        "payment-response": encodePaymentResponse(outcome.settlement),
        "cache-control": "no-store",
      });
    default:
      return unknownOutcome(outcome);
  }
}

function unknownOutcome(outcome: never): never {
  throw new Error(`no HTTP rendering for outcome ${JSON.stringify(outcome)}`);
}
