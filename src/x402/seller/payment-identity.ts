// What makes a payment "the same payment": its EVM authorization nonce, its Solana transaction, or a
// batch-settlement voucher's channel and cumulative total (each total is paid once).
import type { PaymentPayload } from "@x402/core/types";
import { sha256 } from "../../sha256.ts";
import { batchVoucherOf } from "./batch/offer.ts";

export function paymentNonceKey(payload: PaymentPayload): string {
  const network = payload.accepted?.network ?? "unknown";
  const voucher = batchVoucherOf(payload);
  if (voucher) {
    return `${network}:batch-${voucher.type}:${voucher.channelId}:${voucher.maxClaimableAmount}`;
  }
  const inner = (payload.payload ?? {}) as Record<string, unknown>;
  const authorization = inner.authorization as { nonce?: unknown; from?: unknown } | undefined;
  if (authorization && typeof authorization.nonce === "string") {
    return `${network}:eip3009:${String(authorization.from ?? "").toLowerCase()}:${authorization.nonce.toLowerCase()}`;
  }
  const permit2 = inner.permit2Authorization as { nonce?: unknown; from?: unknown } | undefined;
  if (permit2 && (typeof permit2.nonce === "string" || typeof permit2.nonce === "number")) {
    return `${network}:permit2:${String(permit2.from ?? "").toLowerCase()}:${String(permit2.nonce)}`;
  }
  if (typeof inner.transaction === "string") return `${network}:tx:${sha256(inner.transaction)}`;
  return `${network}:payload:${sha256(JSON.stringify(inner))}`;
}

export function payerOf(payload: PaymentPayload): string | null {
  const voucher = batchVoucherOf(payload);
  if (voucher) return voucher.payer ?? null;
  const inner = (payload.payload ?? {}) as Record<string, unknown>;
  const authorization = (inner.authorization ?? inner.permit2Authorization) as { from?: unknown } | undefined;
  const from = authorization?.from;
  return typeof from === "string" ? from : null;
}
