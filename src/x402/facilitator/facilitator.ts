// The embedded local facilitator: the x402 SDK's own exact-EVM and upto-EVM facilitator logic running against
// the store's pretend USDC ledger (with pretend Permit2 for upto: permit2-ledger.ts), and its exact-SVM logic
// against a pretend Solana chain over the same ledger (solana-facilitator.ts). For development, demos and
// tests; no real money moves.
import { x402Facilitator } from "@x402/core/facilitator";
import type {
  FacilitatorContext,
  Network,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";
import { errorText, isObject } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import { atomicToUsd, usdToAtomic } from "../shared/money.ts";
import { isEvmAddress, isSolanaAddress, type NetworkInfo } from "../shared/networks.ts";
import { uptoPayloadProblem } from "../shared/upto-payload.ts";
import { withBatchSettlement } from "./batch-ledger.ts";
import { batchPayloadProblem } from "./batch-payload.ts";
import { createLedgerSigner } from "./ledger-signer.ts";
import { withPermit2 } from "./permit2-ledger.ts";

const UINT256_MAX = 2n ** 256n - 1n;

function isUintString(value: unknown): value is string {
  return typeof value === "string" && /^\d{1,78}$/.test(value) && BigInt(value) <= UINT256_MAX;
}

/** How each operation says "no": verify answers isValid false, settle answers success false. */
export const REFUSALS = {
  verify: (reason: string, message: string, _network = "", payer?: string): VerifyResponse => ({
    isValid: false,
    invalidReason: reason,
    invalidMessage: message,
    ...(payer ? { payer } : {}),
  }),
  settle: (reason: string, message: string, network = "", payer?: string): SettleResponse => ({
    success: false,
    errorReason: reason,
    errorMessage: message,
    transaction: "",
    network: network as Network,
    ...(payer ? { payer } : {}),
  }),
};

/**
 * What is wrong with the scheme payload of an exact-EVM EIP-3009 payment, or undefined when its shape is
 * sound (whether it is *valid* is the facilitator's job). Keeps malformed input away from the SDK, which
 * would throw on it.
 */
export function eip3009PayloadProblem(payload: unknown): string | undefined {
  if (!isObject(payload)) return "payload must be an object";
  if (typeof payload.signature !== "string" || !/^0x([0-9a-fA-F]{2})+$/.test(payload.signature)) {
    return "payload.signature must be a 0x-prefixed hex string";
  }
  const auth = payload.authorization;
  if (!isObject(auth)) return "payload.authorization must be an object";
  for (const field of ["from", "to"] as const) {
    if (typeof auth[field] !== "string" || !isEvmAddress(auth[field])) {
      return `payload.authorization.${field} must be a 0x-prefixed 20-byte address`;
    }
  }
  for (const field of ["value", "validAfter", "validBefore"] as const) {
    if (!isUintString(auth[field])) return `payload.authorization.${field} must be a decimal uint256 string`;
  }
  if (typeof auth.nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(auth.nonce)) {
    return "payload.authorization.nonce must be a 0x-prefixed 32-byte hex string";
  }
  return undefined;
}

/** What is wrong with exact-EVM payment requirements, or undefined. */
export function evmRequirementsProblem(requirements: PaymentRequirements): string | undefined {
  if (!isEvmAddress(requirements.asset)) return "asset must be a 0x-prefixed 20-byte address";
  if (!isEvmAddress(requirements.payTo)) return "payTo must be a 0x-prefixed 20-byte address";
  if (!isUintString(requirements.amount)) return "amount must be a decimal uint256 string";
  return undefined;
}

export function isPermit2Payload(payload: unknown): boolean {
  return isObject(payload) && "permit2Authorization" in payload;
}

function evmPayerOf(payload: PaymentPayload): string | undefined {
  const inner = isObject(payload.payload) ? payload.payload : undefined;
  const auth = inner?.authorization ?? inner?.permit2Authorization;
  return isObject(auth) && typeof auth.from === "string" ? auth.from : undefined;
}

type Refused = { reason: string; message: string } | undefined;
export type Refusal = (
  payload: PaymentPayload,
  requirements: PaymentRequirements,
) => Refused | Promise<Refused>;

/** The exact scheme here settles EIP-3009 authorizations only. */
const exactRefusal: Refusal = (payload, requirements) => {
  if (isPermit2Payload(payload.payload)) {
    return {
      reason: "unsupported_payload_type",
      message: "the local facilitator settles exact payments as EIP-3009 authorizations only, not Permit2",
    };
  }
  const payloadProblem = eip3009PayloadProblem(payload.payload);
  if (payloadProblem) return { reason: "invalid_payload", message: payloadProblem };
  const requirementsProblem = evmRequirementsProblem(requirements);
  if (requirementsProblem) return { reason: "invalid_payment_requirements", message: requirementsProblem };
  return undefined;
};

/** The upto scheme takes Permit2 witness authorizations only (the spec's one asset transfer method). */
const uptoRefusal: Refusal = (payload, requirements) => {
  const payloadProblem = uptoPayloadProblem(payload.payload);
  if (payloadProblem) return { reason: "invalid_payload", message: payloadProblem };
  const requirementsProblem = evmRequirementsProblem(requirements);
  if (requirementsProblem) return { reason: "invalid_payment_requirements", message: requirementsProblem };
  return undefined;
};

/** batch-settlement payloads of a sound shape; deposits through the ERC-3009 collector only (batch-contract.ts). */
const batchRefusal: Refusal = (payload, requirements) => {
  const payloadProblem = batchPayloadProblem(payload.payload);
  if (payloadProblem) return { reason: "invalid_payload", message: payloadProblem };
  const deposit = isObject(payload.payload) ? payload.payload.deposit : undefined;
  if (isObject(deposit) && isObject(deposit.authorization) && !deposit.authorization.erc3009Authorization) {
    return {
      reason: "unsupported_payload_type",
      message:
        "the local facilitator takes batch-settlement deposits as ERC-3009 authorizations only, not Permit2",
    };
  }
  const requirementsProblem = evmRequirementsProblem(requirements);
  if (requirementsProblem) return { reason: "invalid_payment_requirements", message: requirementsProblem };
  return undefined;
};

function batchPayerOf(payload: PaymentPayload): string | undefined {
  const inner = isObject(payload.payload) ? payload.payload : undefined;
  const config = inner?.channelConfig;
  return isObject(config) && typeof config.payer === "string" ? config.payer : undefined;
}

/**
 * Wraps the SDK scheme so that malformed or unsupported input gets a reasoned refusal instead of an
 * exception, and so that an unexpected exception becomes an unexpected_*_error answer.
 */
export function guarded(
  inner: SchemeNetworkFacilitator,
  refusal: Refusal,
  payerOf: (payload: PaymentPayload) => string | undefined = evmPayerOf,
): SchemeNetworkFacilitator {
  return {
    scheme: inner.scheme,
    caipFamily: inner.caipFamily,
    getExtra: (network) => inner.getExtra(network),
    getSigners: (network) => inner.getSigners(network),

    async verify(payload, requirements, context?: FacilitatorContext): Promise<VerifyResponse> {
      const payer = payerOf(payload);
      const refused = await refusal(payload, requirements);
      if (refused) return REFUSALS.verify(refused.reason, refused.message, requirements.network, payer);
      try {
        return await inner.verify(payload, requirements, context);
      } catch (error) {
        return REFUSALS.verify("unexpected_verify_error", errorText(error), requirements.network, payer);
      }
    },

    async settle(payload, requirements, context?: FacilitatorContext): Promise<SettleResponse> {
      const payer = payerOf(payload);
      const refused = await refusal(payload, requirements);
      if (refused) return REFUSALS.settle(refused.reason, refused.message, requirements.network, payer);
      try {
        return await inner.settle(payload, requirements, context);
      } catch (error) {
        return REFUSALS.settle("unexpected_settle_error", errorText(error), requirements.network, payer);
      }
    },
  };
}

/**
 * An x402 v2 facilitator with the SDK's exact-EVM, upto-EVM and batch-settlement-EVM schemes registered for
 * each EVM network given, each over its own local USDC ledger in the store (batch-settlement over a pretend
 * channel contract, batch-contract.ts). It advertises no receiver authorizer for batch-settlement: the seller
 * signs its own claims and refunds, so no refund can be asked of this facilitator on a seller's behalf. Solana networks are registered apart, by
 * solana-facilitator.ts, which brings Solana Kit only where a Solana network is served.
 */
export function createLocalFacilitator(store: Store, networks: NetworkInfo[]): x402Facilitator {
  const facilitator = new x402Facilitator();
  const seen = new Set<string>();
  for (const network of networks) {
    if (network.kind !== "evm" || seen.has(network.caip2)) continue;
    seen.add(network.caip2);
    // One registration per network, so a payment for an unlisted eip155 chain matches nothing.
    const signer = createLedgerSigner(store, network);
    facilitator.register(network.caip2, guarded(new ExactEvmScheme(signer), exactRefusal));
    const uptoSigner = withPermit2(signer, store, network);
    facilitator.register(network.caip2, guarded(new UptoEvmScheme(uptoSigner), uptoRefusal));
    const batchSigner = withBatchSettlement(signer, store, network);
    facilitator.register(
      network.caip2,
      guarded(new BatchSettlementEvmScheme(batchSigner), batchRefusal, batchPayerOf),
    );
  }
  return facilitator;
}

/** Credits pretend USDC to an address on the local ledger; returns its new balance as a USD decimal string. */
export async function creditWallet(
  store: Store,
  network: NetworkInfo,
  address: string,
  usd: string,
): Promise<string> {
  const amount = usdToAtomic(usd);
  if (network.kind === "evm" && !isEvmAddress(address)) throw new Error(`invalid EVM address "${address}"`);
  if (network.kind === "svm" && !isSolanaAddress(address))
    throw new Error(`invalid Solana address "${address}" (base58, 32 to 44 characters)`);
  return atomicToUsd(await store.localUsdc.credit(network.caip2, address, amount));
}
