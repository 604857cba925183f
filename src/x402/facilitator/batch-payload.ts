// The shapes of x402 batch-settlement payloads (`specs/schemes/batch-settlement/scheme_batch_settlement_evm.md`):
// what is wrong with one, named by its path, or undefined when it is sound. Whether it is *valid* is the
// facilitator's job; this keeps malformed input away from the SDK, which would throw on it.
import { isObject } from "../../json.ts";
import { isEvmAddress } from "../shared/networks.ts";

type Field = { test: (value: unknown) => boolean; is: string; optional?: boolean };

const isDecimal = (value: unknown, bits: number): boolean =>
  typeof value === "string" && /^\d{1,78}$/.test(value) && BigInt(value) < 2n ** BigInt(bits);

const ADDRESS: Field = {
  test: (v) => typeof v === "string" && isEvmAddress(v),
  is: "a 0x-prefixed 20-byte address",
};
const UINT128: Field = { test: (v) => isDecimal(v, 128), is: "a decimal uint128 string" };
const UINT256: Field = { test: (v) => isDecimal(v, 256), is: "a decimal uint256 string" };
const BYTES32: Field = {
  test: (v) => typeof v === "string" && /^0x[0-9a-fA-F]{64}$/.test(v),
  is: "0x and 32 bytes of hex",
};
const SIGNATURE: Field = {
  test: (v) => typeof v === "string" && /^0x([0-9a-fA-F]{2})+$/.test(v) && v.length <= 2 + 2 * 4096,
  is: "a 0x-prefixed hex signature",
};
const SALT: Field = {
  test: (v) =>
    BYTES32.test(v) || UINT256.test(v) || (typeof v === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(v)),
  is: "a uint256, decimal or 0x hex",
};
const WITHDRAW_DELAY: Field = {
  test: (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 40,
  is: "an integer number of seconds",
};
const optional = (field: Field): Field => ({ ...field, optional: true });

const CHANNEL_CONFIG: Record<string, Field> = {
  payer: ADDRESS,
  payerAuthorizer: ADDRESS,
  receiver: ADDRESS,
  receiverAuthorizer: ADDRESS,
  token: ADDRESS,
  withdrawDelay: WITHDRAW_DELAY,
  salt: BYTES32,
};
const VOUCHER: Record<string, Field> = {
  channelId: BYTES32,
  maxClaimableAmount: UINT128,
  signature: SIGNATURE,
};
const ERC3009: Record<string, Field> = {
  validAfter: UINT256,
  validBefore: UINT256,
  salt: SALT,
  signature: SIGNATURE,
};
/** About 650 bytes of JSON a claim: a hundred fit the facilitator's 64 KiB request limit. */
const MAX_CLAIMS = 100;

function fieldsProblem(value: unknown, path: string, fields: Record<string, Field>): string | undefined {
  if (!isObject(value)) return `${path} must be an object`;
  for (const [name, field] of Object.entries(fields)) {
    const v = value[name];
    if (v === undefined && field.optional) continue;
    if (!field.test(v)) return `${path}.${name} must be ${field.is}`;
  }
  return undefined;
}

function claimsProblem(value: unknown, path: string): string | undefined {
  if (!Array.isArray(value) || value.length > MAX_CLAIMS)
    return `${path} must be an array of at most ${MAX_CLAIMS} claims`;
  for (const [i, claim] of value.entries()) {
    const at = `${path}[${i}]`;
    const voucher = isObject(claim) ? claim.voucher : undefined;
    const problem =
      fieldsProblem(claim, at, { signature: SIGNATURE, totalClaimed: UINT128 }) ??
      fieldsProblem(voucher, `${at}.voucher`, { maxClaimableAmount: UINT128 }) ??
      fieldsProblem(isObject(voucher) ? voucher.channel : undefined, `${at}.voucher.channel`, CHANNEL_CONFIG);
    if (problem) return problem;
  }
  return undefined;
}

/** The deposit, voucher and refund payloads: a channel config and a voucher, and what each adds. */
function channelPayloadProblem(payload: Record<string, unknown>, path: string): string | undefined {
  const shared =
    fieldsProblem(payload.channelConfig, `${path}.channelConfig`, CHANNEL_CONFIG) ??
    fieldsProblem(payload.voucher, `${path}.voucher`, VOUCHER);
  if (shared) return shared;
  if (payload.type === "deposit") {
    const deposit = payload.deposit;
    const problem = fieldsProblem(deposit, `${path}.deposit`, { amount: UINT128 });
    if (problem || !isObject(deposit)) return problem;
    if (!isObject(deposit.authorization)) return `${path}.deposit.authorization must be an object`;
    const erc3009 = deposit.authorization.erc3009Authorization;
    if (erc3009 === undefined) return undefined; // a Permit2 deposit: refused by name where it is not taken
    return fieldsProblem(erc3009, `${path}.deposit.authorization.erc3009Authorization`, ERC3009);
  }
  if (payload.type === "refund") {
    const problem = fieldsProblem(payload, path, {
      amount: optional(UINT128),
      refundNonce: optional(UINT256),
      refundAuthorizerSignature: optional(SIGNATURE),
      claimAuthorizerSignature: optional(SIGNATURE),
    });
    return (
      problem ?? (payload.claims === undefined ? undefined : claimsProblem(payload.claims, `${path}.claims`))
    );
  }
  return undefined;
}

export function batchPayloadProblem(payload: unknown, path = "payload"): string | undefined {
  if (!isObject(payload)) return `${path} must be an object`;
  switch (payload.type) {
    case "deposit":
    case "voucher":
    case "refund":
      return channelPayloadProblem(payload, path);
    case "claim":
      return (
        claimsProblem(payload.claims, `${path}.claims`) ??
        fieldsProblem(payload, path, { claimAuthorizerSignature: optional(SIGNATURE) })
      );
    case "settle":
      return fieldsProblem(payload, path, { receiver: ADDRESS, token: ADDRESS });
    default:
      return `${path}.type must be one of deposit, voucher, refund, claim, settle`;
  }
}
