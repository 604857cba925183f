// The answer to a client over its limit of unpaid requests: 429 with Retry-After, nothing charged.

import { errorResponse } from "../errors.ts";
import type { RateLimitRefusal } from "./rate-limiter.ts";

export function rateLimitedResponse(refusal: RateLimitRefusal): Response {
  const { limit, expensive, retryAfterSec } = refusal;
  return errorResponse(
    "rate_limited",
    `Too many requests without payment: each client may send ${limit} a minute${expensive ? " to routes whose 402 takes work to price, as this one" : ""}. Retry after ${retryAfterSec} s, or pay for the call (paid requests are not limited). Nothing was charged.`,
    { retryAfterSec },
    { "retry-after": String(retryAfterSec), "cache-control": "no-store" },
  );
}
