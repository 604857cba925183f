// Exact-SVM settlements on Solana, decided through the cluster's JSON-RPC (solana.com/docs/rpc/http):
// getSignatureStatuses for a transaction the facilitator named; otherwise the buyer's own signature is looked
// for among the transactions of its transfer authority (getSignaturesForAddress, then getTransaction, whose
// `transaction.signatures` lists every signature). The transaction id is the fee payer's signature, which
// the facilitator adds, so it is unknown until then. isBlockhashValid says whether the transaction can still
// land: once its blockhash expired, a transaction not found never will be.
import {
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from "@solana/kit";
import {
  ChainUnreachableError,
  type ChainVerdict,
  rpcErrorText,
  type SettlementChain,
  type SettlementLookup,
} from "./verdict.ts";

const SEARCH_LEAD_SEC = 120;
const SIGNATURE_PAGE = 50;

interface DecodedPayment {
  blockhash: string;
  /** The transfer authority (the buyer) and its signature, base58. */
  authority: string;
  authoritySignature: string;
}

export function decodeSvmPayment(lookup: SettlementLookup): DecodedPayment | undefined {
  const transaction = (lookup.payload.payload as { transaction?: unknown } | undefined)?.transaction;
  if (typeof transaction !== "string") return undefined;
  try {
    const wire = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
    const message = getCompiledTransactionMessageDecoder().decode(wire.messageBytes);
    const base58 = getBase58Decoder();
    const signers = Object.entries(wire.signatures);
    // The first signer pays the fee (the facilitator, which has not signed yet); the buyer signed another.
    for (const [address, signature] of signers.slice(1)) {
      if (signature?.some((b) => b !== 0)) {
        return {
          blockhash: message.lifetimeToken,
          authority: address,
          authoritySignature: base58.decode(signature),
        };
      }
    }
  } catch {}
  return undefined;
}

interface SignatureInfo {
  signature: string;
  err: unknown;
  blockTime?: number | null;
}

export interface SolanaChainOptions {
  rpcUrl: string;
  timeoutMs: number;
  /** How requests reach the RPC: `fetch`, or the local facilitator's pretend RPC called in process. */
  fetchImpl?: typeof fetch;
}

export function solanaSettlementChain(options: SolanaChainOptions): SettlementChain {
  let id = 0;
  const fetchRpc = options.fetchImpl ?? fetch;
  async function rpc<T>(method: string, params: unknown[]): Promise<T> {
    try {
      const response = await fetchRpc(options.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (!response.ok) throw new Error(`${method} answered HTTP ${response.status}`);
      const body = (await response.json()) as { result?: T; error?: { message?: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message ?? "error"}`);
      if (!("result" in body)) throw new Error(`${method}: no result`);
      return body.result as T;
    } catch (error) {
      throw new ChainUnreachableError(rpcErrorText(options.rpcUrl, error));
    }
  }

  async function landed(signature: string): Promise<boolean> {
    const statuses = await rpc<{ value: Array<{ err: unknown; confirmationStatus?: string } | null> }>(
      "getSignatureStatuses",
      [[signature], { searchTransactionHistory: true }],
    );
    const status = statuses.value[0];
    return (
      !!status &&
      status.err === null &&
      (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")
    );
  }

  async function search(payment: DecodedPayment, attemptedAt: Date): Promise<string | null> {
    const since = Math.floor(attemptedAt.getTime() / 1000) - SEARCH_LEAD_SEC;
    const candidates = await rpc<SignatureInfo[]>("getSignaturesForAddress", [
      payment.authority,
      { limit: SIGNATURE_PAGE, commitment: "confirmed" },
    ]);
    for (const candidate of candidates) {
      if (candidate.err !== null) continue;
      if (typeof candidate.blockTime === "number" && candidate.blockTime < since) break;
      const tx = await rpc<{ transaction?: { signatures?: string[] }; meta?: { err: unknown } } | null>(
        "getTransaction",
        [
          candidate.signature,
          { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ],
      );
      if (tx?.meta?.err === null && tx.transaction?.signatures?.includes(payment.authoritySignature)) {
        return candidate.signature;
      }
    }
    return null;
  }

  return {
    async check(lookup: SettlementLookup): Promise<ChainVerdict> {
      if (lookup.transaction && (await landed(lookup.transaction))) {
        return { state: "spent", transaction: lookup.transaction };
      }
      const payment = decodeSvmPayment(lookup);
      if (!payment) throw new ChainUnreachableError("the payment's Solana transaction cannot be decoded");
      // Validity first: a blockhash already expired means a transaction not found below never lands.
      const valid = await rpc<{ value: boolean }>("isBlockhashValid", [
        payment.blockhash,
        { commitment: "confirmed" },
      ]);
      const found = await search(payment, lookup.attemptedAt);
      if (found) return { state: "spent", transaction: found };
      return valid.value ? { state: "open", retryAfterSec: 15 } : { state: "expired" };
    },
  };
}
