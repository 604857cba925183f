// Checks a receipt this server issued: a JWS whose signature verifies under our key (the extension's JWS verification;
// the key is ours when the signature verifies with the public key we publish), and the payload's fields.

import type { SettleResponse } from "@x402/core/types";
import {
  extractJWSHeader,
  type JWSSignedReceipt,
  OFFER_RECEIPT,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { decodeHeaderJson } from "../../shared/header-codec.ts";
import { JWS_ALGORITHM, type PaycallReceiptPayload } from "./issuer.ts";
import type { ReceiptKey } from "./signing-key.ts";

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The receipt in what a buyer may hold: the compact JWS, the receipt object as JSON, or PAYMENT-RESPONSE (the
 * header, or its decoded JSON).
 */
function readReceipt(text: string): JWSSignedReceipt | undefined {
  const value = text.trim();
  if (COMPACT_JWS.test(value)) return { format: "jws", signature: value };
  let parsed: unknown;
  try {
    const json = value.startsWith("{") ? JSON.parse(value) : decodeHeaderJson<SettleResponse>(value);
    // The receipt object itself, or a settlement response (PAYMENT-RESPONSE, encoded or decoded) carrying it.
    parsed =
      (json?.extensions?.[OFFER_RECEIPT] as { info?: { receipt?: unknown } } | undefined)?.info?.receipt ??
      json;
  } catch {
    return undefined;
  }
  const receipt = parsed as Partial<JWSSignedReceipt> | undefined;
  if (receipt?.format !== "jws" || typeof receipt.signature !== "string") return undefined;
  return COMPACT_JWS.test(receipt.signature) ? { format: "jws", signature: receipt.signature } : undefined;
}

type ReceiptCheck =
  | { valid: true; kid: string; payload: PaycallReceiptPayload }
  | { valid: false; kid: string | null; reason: string };

function isReceiptPayload(value: unknown): value is PaycallReceiptPayload {
  const p = value as Record<string, unknown> | null;
  return (
    !!p &&
    typeof p === "object" &&
    typeof p.version === "number" &&
    typeof p.network === "string" &&
    typeof p.resourceUrl === "string" &&
    typeof p.payer === "string" &&
    typeof p.issuedAt === "number"
  );
}

/** Undefined when the text is not a JWS at all (a malformed parameter, not an invalid receipt). */
export async function checkReceipt(text: string, key: ReceiptKey): Promise<ReceiptCheck | undefined> {
  const receipt = readReceipt(text);
  if (!receipt) return undefined;
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = extractJWSHeader(receipt.signature);
  } catch {
    return undefined;
  }
  const kid = typeof header.kid === "string" ? header.kid : null;
  if (header.alg !== JWS_ALGORITHM) {
    return {
      valid: false,
      kid,
      reason: `signed with ${String(header.alg)}; this server signs with ${JWS_ALGORITHM}`,
    };
  }
  let payload: unknown;
  try {
    payload = await verifyReceiptSignatureJWS(receipt, key.publicJwk as never);
  } catch {
    return { valid: false, kid, reason: "the signature does not verify under this server's receipt key" };
  }
  if (!isReceiptPayload(payload)) {
    return { valid: false, kid, reason: "signed by this server, but not a receipt (an offer?)" };
  }
  return { valid: true, kid: kid ?? "", payload };
}
