// The channel manager: claims the vouchers of many channels in one transaction and settles what was claimed to
// the pay-to, through the SDK's BatchSettlementChannelManager over the store's channels. One node claims for
// the whole cluster (the holder of a lease, renewed on the worker's schedule beat). A network's vouchers are
// claimed when one of these comes first (docs/batch-settlement.md explains the defaults):
// - threshold: what they charged and is not claimed passes BATCH_CLAIM_THRESHOLD_USD;
// - withdrawal: a buyer asked to withdraw (after the withdraw delay it could take back what it owes);
// - withdraw delay: a channel's last voucher is half a withdraw delay old (a buyer who asks then still leaves
//   half the delay to claim in);
// - interval: BATCH_CLAIM_INTERVAL_SEC since the network's last claim (or its first voucher);
// - shutdown: the last serving node stops.
// What was claimed and not settled (a refund claims in its own transaction) is settled at the next beat.
// A claim or settlement whose answer was lost is decided by the chain before anything else is done on its
// network (lost-answers.ts). Each channel is claimed only up to what the chain still holds of it, and the rest
// written off (drained.ts); a claim refused anyway is split in halves, so one channel refused every time does
// not keep the others of its transaction unclaimed.
import { randomUUID } from "node:crypto";
import type { FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { getDefaultAsset } from "@x402/evm";
import type { BatchSettlementEvmScheme, Channel } from "@x402/evm/batch-settlement/server";
import type { Config } from "../../../config.ts";
import { errorText } from "../../../json.ts";
import type { Logger } from "../../../log.ts";
import type { BatchOperation } from "../../../store/batch-operations.ts";
import type { Store } from "../../../store/store.ts";
import { type BatchContractReader, createBatchContractReaders } from "../chain/batch-contract.ts";
import { ChainUnreachableError } from "../chain/verdict.ts";
import { type ClaimPlan, claimPlan } from "./drained.ts";
import { claimedTotals, decideLostAnswers, syncClaimed, unclaimedOf } from "./lost-answers.ts";
import { batchSchemeOf } from "./offer.ts";
import { refundOf, refundOperations } from "./refund-request.ts";

export const CLAIMER_LEASE = "batch-settlement-claimer";
/** Vouchers per claim transaction (the SDK's default batch). */
const CLAIMS_PER_TRANSACTION = 100;
/**
 * Refused claims a network's round makes before it stops claiming until the next beat: splitting a refused claim
 * of 100 down to its one refused channel takes 8; a facilitator that refuses every claim must not cost hundreds.
 */
const REFUSALS_PER_ROUND = 16;

export type ClaimReason =
  | "threshold"
  | "withdrawal"
  | "withdraw-delay"
  | "interval"
  | "shutdown"
  | "operator"
  /** Claimed (by a refund's claim, or a claim whose settlement failed) and not settled yet. */
  | "unsettled"
  /** A claim or settlement whose answer was lost, which the chain shows did not happen: made again. */
  | "retry"
  /** A lost answer the chain could not be asked about yet: nothing is claimed or settled on the network. */
  | "undecided";

export interface ClaimRound {
  network: string;
  /** Why the network's vouchers were claimed, or null when the round only decided lost answers. */
  reason: ClaimReason | null;
  /** Claims and settlements whose answer was lost, decided by the chain at the start of the round. */
  decided: BatchOperation[];
  operations: BatchOperation[];
}

/** A network's channels, and the charged totals up to which some of them were written off (drained.ts). */
interface Owed {
  channels: Channel[];
  writtenOff: Map<string, bigint>;
}

/** What `channel` still owes this seller (its charges above what was claimed and written off). */
function owedBy(channel: Channel, writtenOff?: Map<string, bigint>): bigint {
  return unclaimedOf(channel, writtenOff?.get(channel.channelId.toLowerCase()));
}

/** Why a network's vouchers are due for a claim now, or undefined. */
export function claimDue(
  channels: Channel[],
  settings: Pick<Config["batch"], "claimThresholdAtomic" | "claimIntervalMs" | "withdrawDelaySec">,
  lastClaimMs: number,
  now: number,
  writtenOff?: Map<string, bigint>,
): ClaimReason | undefined {
  const unclaimed = (c: Channel) => owedBy(c, writtenOff);
  const owing = channels.filter((c) => unclaimed(c) > 0n);
  if (owing.length === 0) return undefined;
  if (owing.reduce((sum, c) => sum + unclaimed(c), 0n) >= BigInt(settings.claimThresholdAtomic))
    return "threshold";
  if (owing.some((c) => c.withdrawRequestedAt > 0)) return "withdrawal";
  const halfDelayMs = (settings.withdrawDelaySec * 1000) / 2;
  if (owing.some((c) => c.lastRequestTimestamp + halfDelayMs <= now)) return "withdraw-delay";
  if (now - lastClaimMs >= settings.claimIntervalMs) return "interval";
  return undefined;
}

/**
 * The facilitator as the SDK's channel manager calls it, its requirements given a time window: the manager
 * sends claims, settlements and refunds with `maxTimeoutSeconds: 0`, which x402's PaymentRequirements schema
 * (positive) refuses, so a facilitator that checks it would refuse every one of them.
 */
function withTimeWindow(facilitator: FacilitatorClient, seconds: number): FacilitatorClient {
  const windowed = (r: PaymentRequirements): PaymentRequirements =>
    r.maxTimeoutSeconds > 0 ? r : { ...r, maxTimeoutSeconds: seconds };
  const payloadOf = (p: PaymentPayload): PaymentPayload => ({ ...p, accepted: windowed(p.accepted) });
  return {
    verify: (p, r) => facilitator.verify(payloadOf(p), windowed(r)),
    settle: (p, r) => facilitator.settle(payloadOf(p), windowed(r)),
    getSupported: () => facilitator.getSupported(),
  };
}

/** A facilitator failure the SDK reports as refused (its answer came back) rather than lost. */
function refused(error: unknown): boolean {
  return /^(Claim|Settle|Refund) failed:/.test(errorText(error));
}

export class BatchChannels {
  private readonly holder = randomUUID();
  private readonly server: x402ResourceServer;
  private readonly facilitator: FacilitatorClient;
  private readonly config: Config;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly readerFor: (network: string) => BatchContractReader;

  constructor(
    server: x402ResourceServer,
    facilitator: FacilitatorClient,
    config: Config,
    store: Store,
    log: Logger,
    readerFor: (network: string) => BatchContractReader = createBatchContractReaders(config, store),
  ) {
    this.server = server;
    this.facilitator = withTimeWindow(facilitator, config.maxTimeoutSeconds);
    this.config = config;
    this.store = store;
    this.log = log;
    this.readerFor = readerFor;
  }

  /** The networks whose batch-settlement scheme is registered here. */
  private schemes(): Array<{ network: string; scheme: BatchSettlementEvmScheme }> {
    return this.config.networks.flatMap((n) => {
      const scheme = batchSchemeOf(this.server, n.caip2);
      return scheme ? [{ network: n.caip2, scheme }] : [];
    });
  }

  /** One beat: if this node is the claimer, each network whose vouchers are due is claimed and settled. */
  async tick(now = Date.now()): Promise<ClaimRound[]> {
    const leaseMs = this.config.scheduleEveryMs * 3;
    if (!(await this.store.leases.acquire(CLAIMER_LEASE, this.holder, leaseMs))) return [];
    const rounds: ClaimRound[] = [];
    for (const { network, scheme } of this.schemes()) {
      const round = await this.round(
        network,
        scheme,
        async ({ channels, writtenOff }) =>
          claimDue(channels, this.config.batch, await this.sinceMs(network), now, writtenOff) ??
          ((await this.store.batchOperations.unsettledAtomic(network)) > 0n ? "unsettled" : undefined),
      );
      if (round) rounds.push(round);
    }
    return rounds;
  }

  /**
   * One network's round: its lost answers decided by the chain first (while one cannot be, nothing else is
   * done there), then its vouchers claimed and settled when `due` gives a reason, or at once when a lost
   * claim or settlement proved not to have happened.
   */
  private async round(
    network: string,
    scheme: BatchSettlementEvmScheme,
    due: (owed: Owed) => Promise<ClaimReason | undefined>,
  ): Promise<ClaimRound | undefined> {
    const lost = await decideLostAnswers({
      network,
      store: this.store,
      reader: this.readerFor(network),
      receiver: this.config.payTo.evm as string,
      token: getDefaultAsset(network as `${string}:${string}`).asset,
      log: this.log,
    });
    const { decided } = lost;
    if (lost.undecided > 0) return { network, reason: "undecided", decided, operations: [] };
    const owed = {
      channels: await this.store.channels.list(network),
      writtenOff: await this.store.channels.writtenOff(network),
    };
    const retry =
      decided.some((o) => o.state === "failed") &&
      (owed.channels.some((c) => owedBy(c, owed.writtenOff) > 0n) ||
        (await this.store.batchOperations.unsettledAtomic(network)) > 0n);
    const reason = retry ? "retry" : await due(owed);
    if (reason) return { ...(await this.claimAndSettle(network, scheme, owed, reason)), decided };
    return decided.length > 0 ? { network, reason: null, decided, operations: [] } : undefined;
  }

  /** Where the network's claim interval runs from: its last claim, or before any, its first voucher sale. */
  private async sinceMs(network: string): Promise<number> {
    const last = await this.store.batchOperations.lastClaimMs(network);
    return last || (await this.store.batchOperations.firstSaleMs(network));
  }

  /**
   * Claims and settles every network's unclaimed vouchers now, whatever the thresholds (shutdown, operator),
   * and settles what was claimed and not settled yet.
   */
  async flush(reason: ClaimReason = "operator"): Promise<ClaimRound[]> {
    const rounds: ClaimRound[] = [];
    for (const { network, scheme } of this.schemes()) {
      const round = await this.round(network, scheme, async ({ channels, writtenOff }) => {
        if (channels.some((c) => owedBy(c, writtenOff) > 0n)) return reason;
        return (await this.store.batchOperations.unsettledAtomic(network)) > 0n ? "unsettled" : undefined;
      });
      if (round) rounds.push(round);
    }
    return rounds;
  }

  /**
   * The vouchers owed claimed in transactions of up to 100, each channel up to what the chain still holds of it
   * (the rest written off), then what was claimed settled to the pay-to. An operation whose answer was lost is
   * recorded unknown (with a claim's channels and totals): the next round asks the chain about it before
   * anything else.
   */
  private async claimAndSettle(
    network: string,
    scheme: BatchSettlementEvmScheme,
    owed: Owed,
    reason: ClaimReason,
  ): Promise<Omit<ClaimRound, "decided">> {
    const owing = owed.channels.filter((c) => owedBy(c, owed.writtenOff) > 0n);
    const manager = scheme.createChannelManager(this.facilitator, network as `${string}:${string}`);
    const plan = await this.plan(network, owing, owed.writtenOff);
    const operations: BatchOperation[] = [];
    for (const lost of plan?.shortfalls ?? []) {
      const op = {
        network,
        kind: "lost" as const,
        channelId: lost.channelId,
        vouchers: 0,
        amount: lost.amount.toString(),
        transaction: null,
        state: "done" as const,
        errorReason: `the channel holds ${lost.balance} on chain (${lost.claimed} of it claimed); its vouchers charged ${lost.upTo}`,
      };
      await this.store.batchOperations.writeOff(op, lost.upTo);
      this.log.warn({ operation: op }, "batch-settlement channel drained before it was claimed: written off");
      operations.push(op);
    }
    // Without the chain's answer, the charges are claimed as they stand (a drained channel's claim is refused).
    const claims = plan?.claims ?? owing;
    const refusals = { left: REFUSALS_PER_ROUND };
    for (let i = 0; i < claims.length; i += CLAIMS_PER_TRANSACTION) {
      const batch = claims.slice(i, i + CLAIMS_PER_TRANSACTION);
      const claimed = await this.claimBatch(manager, network, batch, refusals);
      operations.push(...claimed);
      if (claimed.some((op) => op.state === "unknown") || refusals.left <= 0) break;
    }
    // Everything claimed and not settled yet: these claims, and any before them (a refund's, a failed settle's).
    const unsettled = await this.store.batchOperations.unsettledAtomic(network);
    if (unsettled > 0n) {
      const settle = { network, kind: "settle" as const, vouchers: 0, amount: unsettled.toString() };
      operations.push(await this.attempt(settle, async () => (await manager.settle()).transaction));
    }
    this.log.info({ network, reason, operations }, "batch-settlement vouchers claimed");
    return { network, reason, operations };
  }

  /**
   * What of the owing channels the chain lets this seller claim (the store brought up to what the chain shows
   * claimed), or undefined when the chain cannot be asked.
   */
  private async plan(
    network: string,
    owing: Channel[],
    writtenOff: Map<string, bigint>,
  ): Promise<ClaimPlan | undefined> {
    try {
      const plan = await claimPlan(owing, writtenOff, this.readerFor(network));
      await syncClaimed(this.store, network, plan.onChain);
      return plan;
    } catch (error) {
      if (!(error instanceof ChainUnreachableError)) throw error;
      this.log.warn(
        { network, err: error.message },
        "batch-settlement channels' balances could not be read before claiming; claiming their charges as they stand",
      );
      return undefined;
    }
  }

  /**
   * One claim transaction of `batch`. Refused, it is claimed again in two halves, down to single channels: one
   * channel the contract refuses does not keep the rest unclaimed (each refusal is recorded failed), while the
   * round's `refusals` last.
   */
  private async claimBatch(
    manager: ReturnType<BatchSettlementEvmScheme["createChannelManager"]>,
    network: string,
    batch: Channel[],
    refusals: { left: number },
  ): Promise<BatchOperation[]> {
    const amount = batch.reduce((sum, c) => sum + unclaimedOf(c), 0n);
    const op = await this.attempt(
      {
        network,
        kind: "claim",
        vouchers: batch.length,
        amount: amount.toString(),
        claims: claimedTotals(batch),
      },
      async () => {
        const [result] = await manager.claim({
          selectClaimChannels: () => batch,
          maxClaimsPerBatch: batch.length,
        });
        return result?.transaction ?? null;
      },
    );
    if (op.state !== "failed") return [op];
    refusals.left--;
    if (batch.length === 1 || refusals.left <= 0) return [op];
    const half = Math.ceil(batch.length / 2);
    const first = await this.claimBatch(manager, network, batch.slice(0, half), refusals);
    if (first.some((o) => o.state === "unknown") || refusals.left <= 0) return [op, ...first];
    return [op, ...first, ...(await this.claimBatch(manager, network, batch.slice(half), refusals))];
  }

  /** The operator's (or a job's) cooperative refund of what a channel holds beyond what its vouchers charged. */
  async refund(network: string, channelId: string): Promise<BatchOperation> {
    const scheme = batchSchemeOf(this.server, network);
    const channel = await this.store.channels.get(network, channelId);
    if (!scheme || !channel) throw new Error(`no batch-settlement channel ${channelId} on ${network}`);
    const refund = refundOf(channel);
    // A drained channel (balance below its charges) has nothing to give back; the SDK cannot sign a negative refund.
    if (BigInt(refund.refund) < 0n)
      throw new Error(
        `channel ${channelId} holds ${channel.balance}, less than its vouchers charged (${channel.chargedCumulativeAmount}): it was drained before it was claimed, nothing is left to refund`,
      );
    const manager = scheme.createChannelManager(this.facilitator, network as `${string}:${string}`);
    const op = {
      network,
      kind: "refund" as const,
      channelId: channel.channelId,
      vouchers: 0,
      amount: refund.refund,
    };
    let transaction: string | null = null;
    const attempted = await this.attempt(
      op,
      async () => {
        const [result] = await manager.refund([channel.channelId]);
        if (!result) throw new Error("Refund failed: the channel has a voucher in flight; try again");
        transaction = result.transaction;
        return transaction;
      },
      false,
    );
    if (attempted.state !== "done") return attempted;
    // Done: the refund's claim of the channel's unclaimed charges is on the record too (the next beat settles it).
    for (const done of refundOperations(network, refund, transaction))
      await this.store.batchOperations.record(done);
    return attempted;
  }

  /** Runs one on-chain operation and records it: done, refused (failed) or its answer lost (unknown). */
  private async attempt(
    op: Omit<BatchOperation, "state" | "transaction">,
    run: () => Promise<string | null>,
    recordDone = true,
  ): Promise<BatchOperation> {
    let recorded: BatchOperation;
    try {
      recorded = { ...op, transaction: await run(), state: "done" };
    } catch (error) {
      const state = refused(error) ? "failed" : "unknown";
      recorded = { ...op, transaction: null, state, errorReason: errorText(error).slice(0, 500) };
      this.log.error({ operation: recorded }, `batch-settlement ${op.kind} ${state}`);
    }
    if (recorded.state !== "done" || recordDone) await this.store.batchOperations.record(recorded);
    return recorded;
  }

  /** Gives up the claimer's lease (a stopping node), so another node claims at its next beat. */
  async release(): Promise<void> {
    await this.store.leases.release(CLAIMER_LEASE, this.holder).catch(() => {});
  }
}
