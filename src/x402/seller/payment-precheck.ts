// The checks a payment must pass before it costs a store write, a signature recovery or a facilitator call:
// its shape, recipient, amount and time window, read from the payload alone. What they refuse can never
// verify, so refusing it here only saves the work (the facilitator still checks everything that passes).
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { isObject } from "../../json.ts";

/** The facilitator refuses an authorization that ends sooner than this (the SDK's exact-EVM verify). */
const MIN_VALIDITY_LEFT_SEC = 6;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^\d{1,78}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
/** 65 bytes or more: a plain ECDSA signature, or a smart wallet's longer one. */
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){65,}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * An authorization past its window: never valid for a new call, but it may be the retry of one this server
 * already took (its answer held until the chain decides), so the caller looks it up before refusing it.
 */
export const OUT_OF_TIME = "the authorization has expired or expires within seconds (validBefore)";

function eip3009Problem(
  inner: Record<string, unknown>,
  requirements: PaymentRequirements,
  nowSec: number,
): string | undefined {
  const auth = inner.authorization;
  if (!isObject(auth)) return "payload.authorization must be an object";
  if (typeof inner.signature !== "string" || !SIGNATURE.test(inner.signature))
    return "payload.signature must be a 0x-prefixed hex signature";
  for (const field of ["from", "to"] as const) {
    if (typeof auth[field] !== "string" || !ADDRESS.test(auth[field]))
      return `payload.authorization.${field} must be a 0x-prefixed 20-byte address`;
  }
  for (const field of ["value", "validAfter", "validBefore"] as const) {
    if (typeof auth[field] !== "string" || !UINT.test(auth[field]))
      return `payload.authorization.${field} must be a decimal integer string`;
  }
  if (typeof auth.nonce !== "string" || !NONCE.test(auth.nonce))
    return "payload.authorization.nonce must be a 0x-prefixed 32-byte hex string";
  if ((auth.to as string).toLowerCase() !== requirements.payTo.toLowerCase())
    return "the authorization pays another recipient than this request's payTo";
  if (UINT.test(requirements.amount) && BigInt(auth.value as string) < BigInt(requirements.amount))
    return "the authorization's value is less than this request costs";
  if (Number(auth.validAfter) > nowSec) return "the authorization is not valid yet (validAfter)";
  if (Number(auth.validBefore) < nowSec + MIN_VALIDITY_LEFT_SEC) return OUT_OF_TIME;
  return undefined;
}

const CHANNEL_ID = /^0x[0-9a-fA-F]{64}$/;

/** A batch-settlement payload: a deposit, voucher or refund, its voucher's fields, its channel paying payTo. */
function batchProblem(inner: Record<string, unknown>, requirements: PaymentRequirements): string | undefined {
  if (inner.type !== "deposit" && inner.type !== "voucher" && inner.type !== "refund")
    return "payload.type must be deposit, voucher or refund";
  const { voucher, channelConfig } = inner;
  if (!isObject(voucher) || !isObject(channelConfig))
    return "payload.voucher and payload.channelConfig must be objects";
  if (typeof voucher.channelId !== "string" || !CHANNEL_ID.test(voucher.channelId))
    return "payload.voucher.channelId must be a 0x-prefixed 32-byte hex string";
  if (typeof voucher.maxClaimableAmount !== "string" || !UINT.test(voucher.maxClaimableAmount))
    return "payload.voucher.maxClaimableAmount must be a decimal integer string";
  if (typeof voucher.signature !== "string" || !SIGNATURE.test(voucher.signature))
    return "payload.voucher.signature must be a 0x-prefixed hex signature";
  if (
    typeof channelConfig.receiver !== "string" ||
    channelConfig.receiver.toLowerCase() !== requirements.payTo.toLowerCase()
  )
    return "the channel pays another receiver than this request's payTo";
  return undefined;
}

/**
 * What makes this payment one that cannot verify against `requirements` (matched already by scheme, network,
 * asset, amount and payTo), or undefined. Payload kinds not known here (Permit2, other schemes) pass on to the
 * facilitator.
 */
export function paymentPrecheck(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  now = Date.now(),
): string | undefined {
  const inner = payload.payload;
  if (!isObject(inner)) return "payload must be an object";
  const nowSec = Math.floor(now / 1000);
  if (requirements.scheme === "batch-settlement") return batchProblem(inner, requirements);
  if ("authorization" in inner && requirements.scheme === "exact")
    return eip3009Problem(inner, requirements, nowSec);
  if ("transaction" in inner) {
    const tx = inner.transaction;
    if (typeof tx !== "string" || tx.length < 64 || tx.length > 8192 || !BASE64.test(tx))
      return "payload.transaction must be a base64-encoded transaction";
  }
  return undefined;
}
