// The x402 payment headers encoded and decoded with Buffer. @x402/core's `safeBase64Encode`/`Decode` go through
// btoa/atob one character at a time, which shows in the paid path's profile; the bytes are the same (base64 of
// the UTF-8 JSON), and test/header-codec.test.ts compares them with the SDK's for every header kind.
import type { PaymentPayload, SettleResponse } from "@x402/core/types";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** PAYMENT-SIGNATURE → the payment payload; throws on what is not base64 JSON (as the SDK's decoder does). */
export function decodePaymentSignature(header: string): PaymentPayload {
  // atob refuses a length of 4n+1 (no byte can end there); Buffer would silently drop the last character.
  if (!BASE64.test(header) || header.replace(/=+$/, "").length % 4 === 1) {
    throw new Error("Invalid payment signature header");
  }
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentPayload;
}

/** The settlement as a PAYMENT-RESPONSE header (the facilitator's extension responses stay on the server). */
export function encodePaymentResponse(settlement: SettleResponse): string {
  const { extensionResponses: _internal, ...buyerFacing } = settlement as SettleResponse & {
    extensionResponses?: unknown;
  };
  return Buffer.from(JSON.stringify(buyerFacing), "utf8").toString("base64");
}
