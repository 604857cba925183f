// Channels drained before they were claimed: the buyer finalized a timed withdrawal (or the channel's balance on
// chain is otherwise below what its vouchers charged). The contract reverts a whole claim transaction when any
// of its rows asks more than its channel's balance (ClaimExceedsBalance), so one such channel among the hundred
// of a claim would keep every other one unclaimed, beat after beat. Before claiming, the channel manager reads
// each owing channel's balance and claimed total on chain and claims each only up to what the chain still holds
// (a claim row may ask less than its voucher signed); the rest is written off: a `lost` operation, and the
// channel's charges up to their total are no longer owed. Charges the buyer makes later are owed as any others.
import type { Channel } from "@x402/evm/batch-settlement/server";
import type { BatchContractReader, ChannelTotals } from "../chain/batch-contract.ts";

/** A channel's charges the chain can no longer pay. */
export interface Shortfall {
  channelId: string;
  /** Written off now (atomic USDC). */
  amount: bigint;
  /** The cumulative total the channel's charges are written off up to (its charged total). */
  upTo: bigint;
  /** What the chain holds in the channel and has claimed of it. */
  balance: bigint;
  claimed: bigint;
}

export interface ClaimPlan {
  /** The channels to claim, each with the total its claim row asks (at most its balance) as its charged total. */
  claims: Channel[];
  shortfalls: Shortfall[];
  /** Each channel's totals as the chain showed them. */
  onChain: Map<string, ChannelTotals>;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * What of `owing` the chain lets this seller claim. Throws ChainUnreachableError (the reader's) when the
 * chain cannot be asked.
 */
export async function claimPlan(
  owing: Channel[],
  writtenOff: Map<string, bigint>,
  reader: BatchContractReader,
): Promise<ClaimPlan> {
  const onChain = owing.length > 0 ? await reader.channels(owing.map((c) => c.channelId)) : new Map();
  const plan: ClaimPlan = { claims: [], shortfalls: [], onChain };
  for (const channel of owing) {
    const id = channel.channelId.toLowerCase();
    const totals = onChain.get(id);
    if (!totals) continue;
    const charged = BigInt(channel.chargedCumulativeAmount);
    // What the chain has claimed is the truth (the store may lag behind it: a refund's claim, a lost answer).
    const claimed = max(totals.totalClaimed, BigInt(channel.totalClaimed));
    const claimable = min(charged, totals.balance);
    if (claimable < charged) {
      plan.shortfalls.push({
        channelId: id,
        amount: charged - max(claimable, writtenOff.get(id) ?? 0n),
        upTo: charged,
        balance: totals.balance,
        claimed,
      });
    }
    if (claimable > claimed)
      plan.claims.push({
        ...channel,
        totalClaimed: claimed.toString(),
        chargedCumulativeAmount: claimable.toString(),
      });
  }
  return plan;
}
