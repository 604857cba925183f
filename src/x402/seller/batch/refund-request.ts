// A buyer's cooperative refund request (the scheme's `refund` payload, sent to any paid route): the scheme
// answers in the handler's place and the facilitator returns what the channel holds beyond what its vouchers
// charged. The refund is one of the channel manager's operations on the record, like the operator's.
import type { PaymentPayload } from "@x402/core/types";
import { errorText } from "../../../json.ts";
import type { Store } from "../../../store/store.ts";
import type { PaidCall, Seller } from "../paid-call/call.ts";
import { batchVoucherOf } from "./offer.ts";

/** What a refund request gives back: the amount it names, else the channel's balance beyond its charges. */
export async function batchRefundAmount(store: Store, payload: PaymentPayload): Promise<string | undefined> {
  const voucher = batchVoucherOf(payload);
  if (voucher?.type !== "refund") return undefined;
  const named = (payload.payload as { amount?: unknown }).amount;
  if (typeof named === "string" && /^\d+$/.test(named)) return named;
  const channel = await store.channels.get(payload.accepted.network, voucher.channelId);
  if (!channel) return "0";
  return (BigInt(channel.balance) - BigInt(channel.chargedCumulativeAmount)).toString();
}

/** The settled refund as an operation on the record; a store fault is logged, the buyer's answer stands. */
export async function recordBuyerRefund(seller: Seller, call: PaidCall, transaction: string): Promise<void> {
  const voucher = batchVoucherOf(call.payload);
  await seller.store.batchOperations
    .record({
      network: call.requirements.network,
      kind: "refund",
      channelId: voucher?.channelId ?? null,
      vouchers: 0,
      amount: call.refundAtomic ?? "0",
      transaction: transaction || null,
      state: "done",
    })
    .catch((e: unknown) => seller.log.error({ err: errorText(e) }, "could not record a buyer's refund"));
}
