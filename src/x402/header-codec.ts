// The x402 payment headers encoded and decoded with Buffer. @x402/core's `safeBase64Encode`/`Decode` go through
// btoa/atob one character at a time, which shows in the paid path's profile; the bytes are the same (base64 of
// the UTF-8 JSON), and test/header-codec.test.ts compares them with the SDK's for every header kind.
import type { PaymentPayload, SettleResponse } from "@x402/core/types";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Any x402 header (base64 of UTF-8 JSON) → its value; throws on what the SDK's decoders refuse. */
export function decodeHeaderJson<T>(header: string): T {
  // atob refuses a length of 4n+1 (no byte can end there); Buffer would silently drop the last character.
  if (!BASE64.test(header) || header.replace(/=+$/, "").length % 4 === 1) {
    throw new Error("Invalid x402 header: not base64");
  }
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as T;
}

/** PAYMENT-SIGNATURE → the payment payload. */
export function decodePaymentSignature(header: string): PaymentPayload {
  return decodeHeaderJson<PaymentPayload>(header);
}

/** The payment payload as a PAYMENT-SIGNATURE header. */
export function encodePaymentSignature(payload: PaymentPayload): string {
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
}

/** The settlement as a PAYMENT-RESPONSE header (the facilitator's extension responses stay on the server). */
export function encodePaymentResponse(settlement: SettleResponse): string {
  const { extensionResponses: _internal, ...buyerFacing } = settlement as SettleResponse & {
    extensionResponses?: unknown;
  };
  return Buffer.from(JSON.stringify(buyerFacing), "utf8").toString("base64");
}
