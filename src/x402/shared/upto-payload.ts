// The `upto` scheme's EVM payload (x402 `specs/schemes/upto/scheme_upto_evm.md`, "Phase 2"): a Permit2
// witness authorization of a maximum. Shape checks, and what the paid path reads from it.

import { isObject } from "../../json.ts";
import { isEvmAddress } from "./networks.ts";

export const UPTO = "upto";

const UINT256_MAX = 2n ** 256n - 1n;

function isUint(value: unknown): value is string {
  return typeof value === "string" && /^\d{1,78}$/.test(value) && BigInt(value) <= UINT256_MAX;
}

interface Permit2Authorization {
  from: string;
  permitted: { token: string; amount: string };
  spender: string;
  nonce: string;
  deadline: string;
  witness: { to: string; facilitator: string; validAfter: string };
}

/**
 * What is wrong with an upto payload's shape, or undefined when it is sound (whether it is *valid* is the
 * facilitator's job). Keeps malformed input away from the SDK, which would throw on it.
 */
export function uptoPayloadProblem(payload: unknown): string | undefined {
  if (!isObject(payload)) return "payload must be an object";
  if (typeof payload.signature !== "string" || !/^0x([0-9a-fA-F]{2})+$/.test(payload.signature)) {
    return "payload.signature must be a 0x-prefixed hex string";
  }
  const auth = payload.permit2Authorization;
  if (!isObject(auth)) return "payload.permit2Authorization must be an object";
  for (const field of ["from", "spender"] as const) {
    if (typeof auth[field] !== "string" || !isEvmAddress(auth[field])) {
      return `payload.permit2Authorization.${field} must be a 0x-prefixed 20-byte address`;
    }
  }
  for (const field of ["nonce", "deadline"] as const) {
    if (!isUint(auth[field])) return `payload.permit2Authorization.${field} must be a decimal uint256 string`;
  }
  const permitted = auth.permitted;
  if (!isObject(permitted)) return "payload.permit2Authorization.permitted must be an object";
  if (typeof permitted.token !== "string" || !isEvmAddress(permitted.token)) {
    return "payload.permit2Authorization.permitted.token must be a 0x-prefixed 20-byte address";
  }
  if (!isUint(permitted.amount)) {
    return "payload.permit2Authorization.permitted.amount must be a decimal uint256 string";
  }
  const witness = auth.witness;
  if (!isObject(witness)) return "payload.permit2Authorization.witness must be an object";
  for (const field of ["to", "facilitator"] as const) {
    if (typeof witness[field] !== "string" || !isEvmAddress(witness[field])) {
      return `payload.permit2Authorization.witness.${field} must be a 0x-prefixed 20-byte address`;
    }
  }
  if (!isUint(witness.validAfter)) {
    return "payload.permit2Authorization.witness.validAfter must be a decimal uint256 string";
  }
  return undefined;
}

/** The Permit2 authorization of a payload, when it has one. */
export function permit2AuthorizationOf(payload: unknown): Permit2Authorization | undefined {
  const auth = isObject(payload) ? payload.permit2Authorization : undefined;
  return isObject(auth) ? (auth as unknown as Permit2Authorization) : undefined;
}

/** The local ledger's nonce of a Permit2 transfer: its own namespace beside EIP-3009's bytes32 nonces. */
export function permit2NonceKey(nonce: bigint | string): string {
  return `permit2:${BigInt(nonce).toString()}`;
}
