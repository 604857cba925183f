// The x402 payment headers encoded and decoded with Buffer. @x402/core's `safeBase64Encode`/`Decode` go through
// btoa/atob one character at a time, which shows in the paid path's profile; the bytes are the same (base64 of
// the UTF-8 JSON), and test/header-codec.test.ts compares them with the SDK's for every header kind.
import type { PaymentPayload, SettleResponse } from "@x402/core/types";

/**
 * Decodes what the SDK's decoders accept (its /^[A-Za-z0-9+/]*={0,2}$/, then atob) and nothing else, with Buffer:
 * the standard alphabet, '=' only as the last one or two characters of a length of 4n, and no length of 4n+1
 * once they are removed. Buffer's decoder also reads the URL-safe alphabet, and
 * skips what it cannot read, so a header is refused when it holds '-' or '_', or decodes to fewer bytes than its
 * length gives (any other character). A regular expression over a 13 KB payment signature cost 2 % of a paid call.
 */
function strictBase64(header: string): Buffer | undefined {
  const firstPad = header.indexOf("=");
  const end = firstPad < 0 ? header.length : firstPad;
  const pads = header.length - end;
  // atob strips padding only from a length of 4n: "e30==" is refused, "e30=" and "e30" are not.
  if (
    pads > 2 ||
    (pads > 0 && header.length % 4 !== 0) ||
    (pads === 2 && header.charCodeAt(end + 1) !== 61)
  ) {
    return undefined;
  }
  if (end % 4 === 1 || header.includes("-") || header.includes("_")) return undefined;
  // Buffer reads a character above U+00FF by its low byte ("Ł" as "A"): anything not ASCII is refused first.
  if (Buffer.byteLength(header, "utf8") !== header.length) return undefined;
  const bytes = Buffer.from(header, "base64");
  return bytes.length === Math.floor((end * 3) / 4) ? bytes : undefined;
}

/** Any x402 header (base64 of UTF-8 JSON) → its value; throws on what the SDK's decoders refuse. */
export function decodeHeaderJson<T>(header: string): T {
  const bytes = strictBase64(header);
  if (!bytes) throw new Error("Invalid x402 header: not base64");
  return JSON.parse(bytes.toString("utf8")) as T;
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
