// Settlements whose outcome the facilitator did not tell us (timeout, dropped connection, a process that
// stopped mid-settlement) are decided by the chain (a batch-settlement voucher by the seller's channel:
// batch/voucher-verdict.ts), never by settling again: a second settlement would either
// fail although the money moved, or charge a buyer who never got the answer.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Outcome, PaymentContext } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { errorResponse } from "../../errors.ts";
import { errorText } from "../../json.ts";
import type { Logger } from "../../log.ts";
import { JSON_HEADERS } from "../../responses.ts";
import type { BatchChainAlarm } from "../../store/batch-operations.ts";
import type { ChainAlarm, LedgerRow, RefundDue } from "../../store/ledger.ts";
import type { Store } from "../../store/store.ts";
import { encodePaymentResponse } from "../shared/header-codec.ts";
import { voucherVerdict } from "./batch/voucher-verdict.ts";
import { ChainUnreachableError, type ChainVerdict, type SettlementChain } from "./chain/index.ts";
import { writerStopped } from "./live-nodes.ts";

const RECONCILE_QUEUE = "reconcile-settlement";
/** The error_reason of a payment the chain shows was never settled (its authorization expired unspent). */
const NOT_CHARGED_EXPIRED = "not charged: the authorization expired unspent (checked on chain)";
const RETRY_AFTER_UNREACHABLE_SEC = 30;

type Decision = ChainVerdict | { state: "unreachable"; error: string };

export interface SettlementStatus {
  /** Rows whose settlement is still uncertain (pending or unknown). */
  uncertain: number;
  /** Set when the chain could not be asked about some of them, or about a lost batch-settlement claim or
   * settlement: an operator must look. */
  alarm: string | null;
  chain: ChainAlarm;
  /** batch-settlement claims and settlements whose answer was lost and the chain could not be asked about. */
  batchChain: BatchChainAlarm;
  refundsDue: number;
}

export class UncertainSettlements {
  private readonly config: Config;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly chainFor: (network: string) => SettlementChain;

  constructor(config: Config, store: Store, log: Logger, chainFor: (network: string) => SettlementChain) {
    this.config = config;
    this.store = store;
    this.log = log;
    this.chainFor = chainFor;
  }

  /**
   * A pending row older than this was left by a process that stopped; younger ones may still be in flight.
   * The row is opened at the claim, and a paid call (verify, handler, settle) fits in the payment's window.
   */
  abandonedBefore(now = new Date()): Date {
    return new Date(now.getTime() - this.config.maxTimeoutSeconds * 1000 - 10_000);
  }

  /** Queues a chain check; while undecided, the row is asked about again on every sweep. */
  async queue(ledgerId: number, delayMs = 0): Promise<void> {
    await this.store.jobs
      .enqueue(
        RECONCILE_QUEUE,
        String(ledgerId),
        { ledgerId },
        { runAt: new Date(Date.now() + delayMs), maxAttempts: 3 },
      )
      .catch((e: unknown) =>
        this.log.error({ ledgerId, err: errorText(e) }, "could not queue reconciliation"),
      );
  }

  /**
   * Queues a chain check for every uncertain row: unknown ones, and pending ones abandoned by a stopped
   * process. Run on the worker's beat, so an undecided row is asked about again until the chain decides.
   */
  async sweep(now = new Date()): Promise<number> {
    const ids = [
      ...(await this.store.ledger.idsInStateBefore("pending", this.abandonedBefore(now))),
      ...(await this.store.ledger.idsInStateBefore("unknown", now)),
    ];
    for (const id of ids) await this.queue(id, 0);
    return ids.length;
  }

  /** Asks the chain about one uncertain row and records what it decides. */
  async decide(row: LedgerRow): Promise<Decision> {
    let verdict: ChainVerdict;
    try {
      if (row.batch_channel) verdict = await voucherVerdict(this.store, row);
      else if (!row.payment_payload || !row.requirements)
        throw new ChainUnreachableError("the row keeps no payment to look up; check by hand");
      else
        verdict = await this.chainFor(row.network).check({
          payload: JSON.parse(row.payment_payload) as PaymentPayload,
          requirements: JSON.parse(row.requirements) as PaymentRequirements,
          transaction: row.transaction,
          attemptedAt: new Date(row.created_at),
        });
    } catch (error) {
      if (!(error instanceof ChainUnreachableError)) throw error;
      await this.store.ledger.recordChainCheck(row.id, error.message);
      this.log.error(
        { ledgerId: row.id, network: row.network, err: error.message },
        "SETTLEMENT UNDECIDED: the chain cannot be asked; the row stays uncertain",
      );
      return { state: "unreachable", error: error.message };
    }
    await this.store.ledger.recordChainCheck(row.id, null);
    if (verdict.state === "spent") {
      await this.store.ledger.resolve(
        row.id,
        "settled",
        verdict.transaction,
        row.delivered ? null : "settled (confirmed on chain); answer not yet delivered",
      );
      this.log.info({ ledgerId: row.id, transaction: verdict.transaction }, "settlement confirmed on chain");
    } else if (verdict.state === "expired") {
      await this.store.ledger.resolve(row.id, "failed", null, NOT_CHARGED_EXPIRED);
      // A voucher's total not charged may be paid again (the buyer's next voucher signs the same total).
      if (row.batch_channel && row.nonce_key) await this.store.ledger.voidNonce(row.id, row.nonce_key);
      this.log.info({ ledgerId: row.id }, "settlement never happened; the authorization expired unspent");
    }
    return verdict;
  }

  /** The worker's job: decides one row if it is still uncertain. */
  async reconcile(ledgerId: number): Promise<"settled" | "failed" | "unknown" | "already-resolved"> {
    const row = await this.store.ledger.get(ledgerId);
    if (!row || (row.state !== "unknown" && row.state !== "pending")) return "already-resolved";
    const decision = await this.decide(row);
    if (decision.state === "spent") return "settled";
    if (decision.state === "expired") return "failed";
    return "unknown"; // the next sweep asks again
  }

  /**
   * A buyer presents a payment already claimed. Its row decides: a settled payment whose answer was not
   * delivered gets the answer; an uncertain one is asked about on chain; anything else is a reused payment
   * (undefined: the caller answers 402 payment_already_used).
   */
  async presentedAgain(
    nonceKey: string,
    requestHash: string,
    run: (payment: PaymentContext) => Promise<Outcome<unknown>>,
  ): Promise<Response | "expired" | "in-flight" | undefined> {
    let row = await this.store.ledger.findByNonceKey(nonceKey);
    if (!row || row.request_hash !== requestHash) return undefined;
    if (row.state === "failed") return row.error_reason === NOT_CHARGED_EXPIRED ? "expired" : undefined;
    // Open from the claim: its request may still be running (a replay), unless every live serving process
    // started after the row was written (its writer crashed): then the chain is asked at once.
    if (
      row.state === "pending" &&
      row.created_at >= this.abandonedBefore().toISOString() &&
      !(await writerStopped(this.store, row.created_at))
    )
      return "in-flight";
    if (row.state === "unknown" || row.state === "pending") {
      const decision = await this.decide(row);
      if (decision.state === "expired") return "expired";
      if (decision.state !== "spent") return this.confirming(decision);
      row = (await this.store.ledger.get(row.id)) ?? row;
    }
    if (row.state !== "settled" || row.delivered) return undefined;
    return this.deliver(row, run);
  }

  private confirming(decision: Decision): Response {
    const retryAfter = decision.state === "open" ? decision.retryAfterSec : RETRY_AFTER_UNREACHABLE_SEC;
    return errorResponse(
      "payment_confirming",
      undefined,
      { charged: "unknown", retryAfterSec: retryAfter },
      { "retry-after": String(retryAfter), "cache-control": "no-store" },
    );
  }

  /** The answer of a settled payment: the one held at settlement time, or produced again. */
  private async deliver(
    row: LedgerRow,
    run: (payment: PaymentContext) => Promise<Outcome<unknown>>,
  ): Promise<Response> {
    let text = row.held_response;
    if (text === null) {
      let outcome: Outcome<unknown> | undefined;
      try {
        outcome = await run({ payer: row.payer, network: row.network });
      } catch (error) {
        this.log.error(
          { ledgerId: row.id, err: errorText(error) },
          "handler threw producing a paid answer again",
        );
      }
      if (outcome?.status !== 200) {
        return errorResponse(
          "answer_unavailable",
          `Your payment is confirmed${row.transaction ? ` (transaction ${row.transaction})` : ""} but the answer cannot be produced right now. Retry with the same PAYMENT-SIGNATURE; it is not charged again.`,
          { charged: true, retryAfterSec: RETRY_AFTER_UNREACHABLE_SEC },
          { "retry-after": String(RETRY_AFTER_UNREACHABLE_SEC), "cache-control": "no-store" },
        );
      }
      text = JSON.stringify(outcome.body);
    }
    await this.store.ledger
      .markDelivered(row.id)
      .catch((e: unknown) =>
        this.log.error({ ledgerId: row.id, err: errorText(e) }, "could not mark delivered"),
      );
    const receipt = encodePaymentResponse({
      success: true,
      transaction: row.transaction ?? "",
      network: row.network as PaymentRequirements["network"],
      ...(row.payer ? { payer: row.payer } : {}),
      ...voucherExtra(row),
    });
    return new Response(text, {
      status: 200,
      headers: { ...JSON_HEADERS, "payment-response": receipt, "cache-control": "private, no-store" },
    });
  }

  /** For status and stats: how many settlements are uncertain, the RPC alarm, and refunds due. */
  async status(now = new Date()): Promise<SettlementStatus> {
    const totals = await this.store.ledger.totals();
    const uncertain = totals
      .filter((t) => t.state === "unknown" || t.state === "pending")
      .reduce((n, t) => n + t.count, 0);
    const chain = await this.store.ledger.chainAlarm();
    const batchChain = await this.store.batchOperations.chainAlarm();
    const refunds = await this.store.ledger.refundsDue(now);
    const alarms = [
      chain.unreachable > 0
        ? `${chain.unreachable} uncertain settlement(s) on ${chain.networks.join(", ")} cannot be checked on chain: ${chain.lastError}`
        : null,
      batchChain.unreachable > 0
        ? `${batchChain.unreachable} batch-settlement claim(s) or settlement(s) on ${batchChain.networks.join(", ")} whose answer was lost cannot be checked on chain (nothing more is claimed there until they are): ${batchChain.lastError}`
        : null,
    ].filter((a) => a !== null);
    return {
      uncertain,
      alarm: alarms.length > 0 ? alarms.join("; ") : null,
      chain,
      batchChain,
      refundsDue: refunds.length,
    };
  }

  refundsDue(now = new Date()): Promise<RefundDue[]> {
    return this.store.ledger.refundsDue(now);
  }
}

/**
 * A voucher's answer delivered late carries what the scheme's own answers carry: the amount charged and the
 * channel's cumulative total after it, so the buyer's client moves its channel on (without it, a client that
 * cannot read the chain would sign the paid total again).
 */
function voucherExtra(row: LedgerRow): { extra?: Record<string, unknown> } {
  if (!row.batch_channel || !row.batch_cumulative) return {};
  return {
    extra: {
      chargedAmount: row.amount,
      channelState: { channelId: row.batch_channel, chargedCumulativeAmount: row.batch_cumulative },
    },
  };
}
