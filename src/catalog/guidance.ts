// The short text agents read before calling: OpenAPI's info.x-guidance and /llms.txt say the same.
import type { Config } from "../config.ts";

/** The cold-probe rule, in one sentence: README, OpenAPI and the 402 path say it alike. */
const COLD_PROBE_RULE =
  "A request with no parameters at all (GET with an empty query; POST with no body or {}) is answered with the " +
  "route's 402 (price, input schema and example); a request that carries parameters but misses or breaks one " +
  "gets a 400 naming it before any payment is asked.";

export function agentGuidance(config: Config): string {
  const origin = config.publicUrl;
  return [
    "paycall sells JSON answers per call, paid in USDC with x402 version 2: no account, no API key.",
    "How to pay: call a route; the 402 answer carries a PAYMENT-REQUIRED header (base64 JSON: accepts[] with " +
      "scheme exact, network, USDC asset, atomic amount, payTo). Sign it with an x402 client (for example " +
      "@x402/fetch) and repeat the identical request with a PAYMENT-SIGNATURE header. The answer carries " +
      "PAYMENT-RESPONSE (the settlement receipt). A route billed by use (its x-payment-info x402 entry has `upto`) also " +
      "takes an upto payment: the amount is a maximum, and you are charged what the call used.",
    "You are charged only for 2xx answers: a 4xx or 5xx is never settled. Bad input gets a 400 naming the " +
      "parameter before payment is requested.",
    COLD_PROBE_RULE,
    "Try before you buy: most paid routes have a free sample (x-free-sample in this document, freeSampleUrl in " +
      `${origin}/catalog.json), a few per hour per client.`,
    "Dynamic prices (chat, doctor test-buy and payment diagnosis) are computed from the request before payment " +
      "and are the same on the 402 and on the paid retry; x-payment-info.price gives their bounds.",
    "A register item not yet cached answers 404 not_cached with retryAfterSec (never charged): retry then.",
    `Catalog: ${origin}/catalog.json. Terms and sources: ${origin}/terms.json. MCP: ${origin}/mcp.`,
  ].join("\n\n");
}
