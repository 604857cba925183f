// A buyer's cooperative refund request (the scheme's `refund` payload, sent to any paid route): the scheme
// answers in the handler's place and the facilitator returns what the channel holds beyond what its vouchers
// charged, claiming in the same transaction what they charged and was not claimed yet. Both are operations on
// the record, like the operator's refunds (channel-manager.ts); the claimed part is settled by the next beat.
import type { PaymentPayload } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import type { Logger } from "../../../log.ts";
import type { BatchOperation } from "../../../store/batch-operations.ts";
import type { Store } from "../../../store/store.ts";
import { batchVoucherOf } from "./offer.ts";

/** What a refund gives back, and what it claims first (atomic USDC). */
export interface BatchRefund {
  channelId: string;
  refund: string;
  claim: string;
}

/** A refund of the channel's balance beyond its charges (or `named` of it), claiming its unclaimed charges. */
export function refundOf(
  channel: { channelId: string; balance: string; chargedCumulativeAmount: string; totalClaimed: string },
  named?: string,
): BatchRefund {
  const charged = BigInt(channel.chargedCumulativeAmount);
  return {
    channelId: channel.channelId,
    refund: named ?? (BigInt(channel.balance) - charged).toString(),
    claim: (charged - BigInt(channel.totalClaimed)).toString(),
  };
}

/** The operations a refund done in `transaction` puts on the record: its claim (when any), then the refund. */
export function refundOperations(
  network: string,
  r: BatchRefund,
  transaction: string | null,
): BatchOperation[] {
  const common = { network, channelId: r.channelId, transaction, state: "done" as const };
  const claim =
    BigInt(r.claim) > 0n ? [{ ...common, kind: "claim" as const, vouchers: 1, amount: r.claim }] : [];
  return [...claim, { ...common, kind: "refund", vouchers: 0, amount: r.refund }];
}

/** What a refund request gives back and claims, read from the seller's channel before it is settled. */
export async function batchRefundAmount(
  store: Store,
  payload: PaymentPayload,
): Promise<BatchRefund | undefined> {
  const voucher = batchVoucherOf(payload);
  if (voucher?.type !== "refund") return undefined;
  const channel = await store.channels.get(payload.accepted.network, voucher.channelId);
  if (!channel) return { channelId: voucher.channelId, refund: "0", claim: "0" };
  const named = (payload.payload as { amount?: unknown }).amount;
  return refundOf(channel, typeof named === "string" && /^\d+$/.test(named) ? named : undefined);
}

/** The settled refund on the record; a store fault is logged, the buyer's answer stands. */
export async function recordBuyerRefund(
  store: Store,
  log: Logger,
  network: string,
  refund: BatchRefund,
  transaction: string,
): Promise<void> {
  try {
    for (const op of refundOperations(network, refund, transaction || null))
      await store.batchOperations.record(op);
  } catch (e) {
    log.error({ err: errorText(e) }, "could not record a buyer's refund");
  }
}
