// JSON responses. CORS headers are part of every answer (rather than added by middleware, which would
// make the server copy each response) so browser clients can send PAYMENT-SIGNATURE and read receipts.
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "PAYMENT-REQUIRED, PAYMENT-RESPONSE, Retry-After, X-Request-Id, Mcp-Session-Id",
  // Security headers on every answer: JSON is never sniffed as something else, and no URL leaks onwards.
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", ...CORS_HEADERS };

export const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers":
    "Content-Type, PAYMENT-SIGNATURE, Authorization, X-Request-Id, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
  "access-control-max-age": "86400",
};

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** A handler's outcome as a response; a queued item's 404 and an unavailable upstream's 503 say when to retry. */
export function outcomeResponse(outcome: { status: number; body: unknown }): Response {
  const retryAfter =
    outcome.status === 404 || outcome.status === 503
      ? (outcome.body as { retryAfterSec?: unknown }).retryAfterSec
      : undefined;
  return jsonResponse(
    outcome.status,
    outcome.body,
    typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : {},
  );
}
