// What the chain says about a settlement whose outcome the facilitator did not tell us.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

export type ChainVerdict =
  /** The authorization was spent: the buyer paid. `transaction` when the RPC let us find it. */
  | { state: "spent"; transaction: string | null }
  /** Not spent, and it can no longer be (its validity window closed on chain): not charged, final. */
  | { state: "expired" }
  /** Not spent yet, but it still could be: ask again after `retryAfterSec`. */
  | { state: "open"; retryAfterSec: number };

/** The RPC could not be asked (down, refused, timed out, malformed answer): nothing is concluded. */
export class ChainUnreachableError extends Error {}

export interface SettlementLookup {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  /** A transaction the facilitator named (e.g. a pending settlement), if any. */
  transaction: string | null;
  /** When the settlement was attempted: where a search for its transaction starts. */
  attemptedAt: Date;
}

export interface SettlementChain {
  /** Throws ChainUnreachableError when the chain cannot be asked. */
  check(lookup: SettlementLookup): Promise<ChainVerdict>;
}

/** An RPC error as the operator may see it: the endpoint's host only (its URL may carry an API key). */
export function rpcErrorText(url: string, error: unknown): string {
  let host = "the RPC";
  try {
    host = new URL(url).host;
  } catch {}
  // viem keeps the HTTP status and the server's words apart from its short message.
  const e = error as { shortMessage?: string; message?: string; status?: number; details?: string };
  const raw =
    error instanceof Error
      ? [
          e.shortMessage ?? e.message,
          e.status ? `(HTTP ${e.status})` : "",
          e.details && e.details !== e.shortMessage ? e.details : "",
        ]
          .filter(Boolean)
          .join(" ")
      : String(error);
  const cleaned = raw
    .split(url)
    .join(host)
    .replace(/https?:\/\/\S+/g, (u) => {
      try {
        return new URL(u).host;
      } catch {
        return "<url>";
      }
    });
  return `${host}: ${cleaned.split("\n")[0]?.slice(0, 300)}`;
}
