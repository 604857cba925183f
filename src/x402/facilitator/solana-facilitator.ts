// The local facilitator's Solana side: the SDK's exact-SVM facilitator scheme over a pretend Solana chain on
// the store's USDC ledger (solana-ledger.ts), and the pretend JSON-RPC buyers read it through (solana-rpc.ts).
// Imported only when a Solana network is served.

import type { KeyPairSigner } from "@solana/kit";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload } from "@x402/core/types";
import { decodeTransactionFromPayload, getTokenPayerFromTransaction } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { isObject } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import { isSolanaAddress, type NetworkInfo } from "../shared/networks.ts";
import { guarded, type Refusal } from "./facilitator.ts";
import type { Clock } from "./solana-blocks.ts";
import { createSolanaLedger, type SolanaLedger } from "./solana-ledger.ts";
import { createSolanaRpc, type SolanaRpc } from "./solana-rpc.ts";

/** A wire transaction is at most 1232 bytes: 1644 characters of base64. */
const MAX_TRANSACTION_BASE64 = 1644;
const U64_MAX = 2n ** 64n - 1n;

export interface LocalSolanaOptions {
  feePayer: KeyPairSigner;
  now?: Clock;
}

function svmPayerOf(payload: PaymentPayload): string | undefined {
  try {
    return (
      getTokenPayerFromTransaction(
        decodeTransactionFromPayload(payload.payload as { transaction: string }),
      ) || undefined
    );
  } catch {
    return undefined;
  }
}

/** Malformed input gets a reasoned refusal; a well-formed pay-to's token account is opened on the chain. */
function svmRefusal(ledger: SolanaLedger): Refusal {
  return async (payload, requirements) => {
    const inner = payload.payload;
    if (!isObject(inner) || typeof inner.transaction !== "string")
      return { reason: "invalid_payload", message: "payload.transaction must be a base64 string" };
    if (
      inner.transaction.length > MAX_TRANSACTION_BASE64 ||
      !/^[A-Za-z0-9+/]+={0,2}$/.test(inner.transaction)
    )
      return {
        reason: "invalid_payload",
        message: "payload.transaction must be a base64 wire transaction of at most 1232 bytes",
      };
    if (!isSolanaAddress(requirements.payTo))
      return { reason: "invalid_payment_requirements", message: "payTo must be a base58 Solana address" };
    if (!/^\d{1,20}$/.test(requirements.amount) || BigInt(requirements.amount) > U64_MAX)
      return { reason: "invalid_payment_requirements", message: "amount must be a decimal u64 string" };
    await ledger.openTokenAccount(requirements.payTo);
    return undefined;
  };
}

/**
 * Registers exact-SVM for each Solana network given, each over its own pretend chain; returns each network's
 * pretend RPC by network name.
 */
export function registerLocalSolana(
  facilitator: x402Facilitator,
  store: Store,
  networks: NetworkInfo[],
  options: LocalSolanaOptions,
): Map<string, SolanaRpc> {
  const rpcs = new Map<string, SolanaRpc>();
  for (const network of networks) {
    if (network.kind !== "svm" || rpcs.has(network.name)) continue;
    const ledger = createSolanaLedger(store, network, options);
    facilitator.register(
      network.caip2,
      guarded(new ExactSvmScheme(ledger.signer), svmRefusal(ledger), svmPayerOf),
    );
    rpcs.set(network.name, createSolanaRpc(store, network, options.now));
  }
  return rpcs;
}
