// What decides a batch-settlement call left uncertain (its node stopped between accepting the voucher and
// answering): not the chain, the seller's own channel. A voucher is charged when the channel's charged total
// reached the total it signed (the increment commits just before the answer leaves, in one store
// transaction); no other request can commit that total, as it would have to claim the same payment (the
// nonce claim of its ledger row). Not charged once the voucher's reservation of the channel is gone or
// expired: the buyer's next voucher is then taken at the old total.
import type { Store } from "../../../store/store.ts";
import type { ChainVerdict } from "../chain/index.ts";

export interface VoucherRow {
  network: string;
  batch_channel: string | null;
  batch_cumulative: string | null;
}

export async function voucherVerdict(store: Store, row: VoucherRow, now = Date.now()): Promise<ChainVerdict> {
  if (!row.batch_channel || !row.batch_cumulative) throw new Error("not a batch-settlement row");
  const channel = await store.channels.get(row.network, row.batch_channel);
  const signed = BigInt(row.batch_cumulative);
  // Closed by a refund before this was decided: a refund waits for the voucher's reservation to expire, so the
  // voucher was charged only if it committed first, which the closed channel no longer shows. Taken as not
  // charged (the sweep decides within a beat of the reservation's end, long before a refund usually comes).
  if (!channel) return { state: "expired" };
  if (BigInt(channel.chargedCumulativeAmount) >= signed) return { state: "spent", transaction: null };
  const pending = channel.pendingRequest;
  if (pending && pending.expiresAt > now && BigInt(pending.signedMaxClaimable) === signed) {
    return { state: "open", retryAfterSec: Math.max(1, Math.ceil((pending.expiresAt - now) / 1000)) };
  }
  return { state: "expired" };
}
