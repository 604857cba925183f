// Claims and settlements whose answer was lost (a timeout, a dropped connection, a 5xx without a verdict),
// decided by the batch-settlement contract's state before the channel manager does anything else on the
// network, as exact's uncertain settlements are decided by the token's:
// - a claim is done when the chain shows every one of its channels claimed at least to the total it asked
//   (one transaction: it applied to all or to none), else failed; either way each channel in the store is
//   brought up to the claimed total the chain shows, so nothing the chain holds claimed is claimed again;
// - a settlement moves all that the pay-to claimed and has not settled: it is done when the chain's unsettled
//   amount is below what the done claims and settlements on record leave unsettled (and it moved the
//   difference), else failed (the next settlement moves it).
// A failed one is claimed or settled again at the same beat. When the chain cannot be asked, the operation
// stays unknown with the reason (the alarm: /health, /admin/stats, /metrics) and nothing more is claimed or
// settled on that network until it answers; the next beat asks again.
import type { Channel } from "@x402/evm/batch-settlement/server";
import type { Logger } from "../../../log.ts";
import { type BatchOperation, type ClaimedTotal, owing } from "../../../store/batch-operations.ts";
import type { Store } from "../../../store/store.ts";
import type { BatchContractReader, ChannelTotals } from "../chain/batch-contract.ts";
import { ChainUnreachableError } from "../chain/verdict.ts";

export interface LostAnswers {
  /** The operations the chain decided now, with their new state and what they moved. */
  decided: BatchOperation[];
  /** Operations still undecided (the chain could not be asked): nothing more is done on the network. */
  undecided: number;
}

/** A claim's rows: the totals it asked the contract to record as claimed, per channel. */
export function claimedTotals(channels: Channel[]): ClaimedTotal[] {
  return channels.map((c) => ({
    channelId: c.channelId.toLowerCase(),
    totalClaimed: c.chargedCumulativeAmount,
  }));
}

export async function decideLostAnswers(options: {
  network: string;
  store: Store;
  reader: BatchContractReader;
  /** The pay-to and token the network's settlements move to and in. */
  receiver: string;
  token: string;
  log: Logger;
}): Promise<LostAnswers> {
  const { network, store, reader, log } = options;
  const lost = await store.batchOperations.undecided(network);
  const decided: BatchOperation[] = [];
  for (const [i, op] of lost.entries()) {
    let outcome: { state: "done" | "failed"; amount: string };
    try {
      outcome =
        op.kind === "claim"
          ? await decideClaim(store, reader, network, op)
          : await decideSettle(store, reader, network, op, options.receiver, options.token);
    } catch (error) {
      if (!(error instanceof ChainUnreachableError)) throw error;
      const reason = error.message;
      await store.batchOperations.recordChainError(op.id, reason);
      log.error(
        { operation: op.id, kind: op.kind, network, err: reason },
        "BATCH OPERATION UNDECIDED: the chain cannot be asked; nothing more is claimed or settled on this network until it answers",
      );
      return { decided, undecided: lost.length - i };
    }
    await store.batchOperations.decide(op.id, outcome.state, outcome.amount);
    decided.push({ ...op, ...outcome });
    log.info(
      { operation: op.id, kind: op.kind, network, ...outcome },
      "batch-settlement lost answer decided on chain",
    );
  }
  return { decided, undecided: 0 };
}

async function decideClaim(
  store: Store,
  reader: BatchContractReader,
  network: string,
  op: BatchOperation,
): Promise<{ state: "done" | "failed"; amount: string }> {
  // A claim recorded without its rows: every channel still owing is looked up (none applied means failed).
  const rows =
    op.claims ?? claimedTotals((await store.channels.list(network)).filter((c) => unclaimedOf(c) > 0n));
  const onChain = await reader.channels(rows.map((r) => r.channelId));
  await syncClaimed(store, network, onChain);
  const applied =
    rows.length > 0 &&
    rows.every((r) => (onChain.get(r.channelId)?.totalClaimed ?? 0n) >= BigInt(r.totalClaimed));
  return { state: applied ? "done" : "failed", amount: op.amount };
}

async function decideSettle(
  store: Store,
  reader: BatchContractReader,
  network: string,
  op: BatchOperation,
  receiver: string,
  token: string,
): Promise<{ state: "done" | "failed"; amount: string }> {
  const totals = await reader.receiver(receiver, token);
  const unsettledOnChain = totals.totalClaimed - totals.totalSettled;
  const unsettledOnRecord = await store.batchOperations.unsettledAtomic(network);
  if (unsettledOnChain < unsettledOnRecord)
    return { state: "done", amount: (unsettledOnRecord - unsettledOnChain).toString() };
  return { state: "failed", amount: op.amount };
}

/**
 * Each channel in the store brought to what the chain shows: up to its claimed total, and down to its balance
 * when the buyer took some back (a finalized withdrawal), so no voucher is taken against money gone.
 */
export async function syncClaimed(
  store: Store,
  network: string,
  onChain: Map<string, ChannelTotals>,
): Promise<void> {
  for (const [channelId, totals] of onChain) {
    await store.channels.update(network, channelId, (current) => {
      if (!current) return current;
      const claimedBehind = totals.totalClaimed > BigInt(current.totalClaimed);
      const drained = totals.balance < BigInt(current.balance);
      if (!claimedBehind && !drained) return current;
      return {
        ...current,
        ...(claimedBehind ? { totalClaimed: totals.totalClaimed.toString() } : {}),
        ...(drained ? { balance: totals.balance.toString() } : {}),
      };
    });
  }
}

/** What a channel's vouchers charged and is still to be claimed (charges written off up to `writtenOffTo` are not). */
export function unclaimedOf(channel: Channel, writtenOffTo?: bigint): bigint {
  return owing(channel.chargedCumulativeAmount, channel.totalClaimed, writtenOffTo);
}
