// One paid request as it goes through its stages (charge.ts): what each stage hands on to the next, and what the
// call holds that must be given back however it ends.
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Outcome, PaymentContext } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import type { Logger } from "../../../log.ts";
import type { PaywallEvents } from "../../../observability/paywall-events.ts";
import type { LedgerEntry } from "../../../store/ledger.ts";
import type { Store } from "../../../store/store.ts";
import type { BatchRefund } from "../batch/refund-request.ts";
import type { ChallengeRequest } from "../challenge.ts";
import type { Pricing } from "../pricing.ts";
import type { ReceiptIssuer } from "../receipts/issuer.ts";
import type { AnswerKey, PaidAnswers } from "../retries/paid-answers.ts";
import type { UncertainSettlements } from "../uncertain-settlements.ts";
import type { PaidOutcome, PaymentRequiredOutcome } from "./outcome.ts";
import type { PaidCallSlots } from "./slots.ts";

/**
 * The payment as the transport carries it: HTTP's PAYMENT-SIGNATURE header (base64 JSON), or the PaymentPayload
 * itself (MCP's `_meta["x402/payment"]`, already parsed with its message).
 */
export type PresentedPayment = { header: string } | { payload: unknown };

/** A request carrying a payment, and the handler that makes its answer. */
export interface PaidRequest extends ChallengeRequest {
  requestHash: string;
  payment: PresentedPayment;
  run: (payment: PaymentContext) => Promise<Outcome<unknown>>;
}

/** What the stages use of the paywall. */
export interface Seller {
  readonly server: x402ResourceServer;
  readonly config: Config;
  readonly store: Store;
  readonly log: Logger;
  readonly uncertain: UncertainSettlements;
  readonly receipts: ReceiptIssuer;
  readonly answers: PaidAnswers;
  /** This node's paid calls in flight and their bound (admit.ts). */
  readonly slots: PaidCallSlots;
  /** Facilitator failures and settlements, once the service observes the paywall. */
  events(): PaywallEvents | undefined;
  requirements(priceUsd: string, pricing: Pricing): Promise<PaymentRequirements[]>;
  /** The route's 402 with this error and message. */
  challenge(request: ChallengeRequest, error: string, message?: string): Promise<PaymentRequiredOutcome>;
  /** The 402 for one refused payment, with what its scheme adds for it (batch-settlement's channel state). */
  challengeFor(
    request: ChallengeRequest,
    payload: PaymentPayload,
    error: string,
    message?: string,
  ): Promise<PaymentRequiredOutcome>;
}

/**
 * The state of one paid call. Each field is set by the stage named beside it and read by the later ones; the
 * stages run in order, so a stage never reads a field a later stage sets.
 */
export class PaidCall {
  readonly request: PaidRequest;
  /** decode */
  payload!: PaymentPayload;
  /** match: the accepts entry the payment pays */
  requirements!: PaymentRequirements;
  /** readPaymentId: the buyer's payment identifier, when the payload names one */
  paymentId: string | undefined;
  /** precheck: what makes this payment the same payment (its nonce) */
  nonceKey!: string;
  /** verify */
  verifiedPayer: string | undefined;
  /** verify: the answer a scheme gives in place of the handler's (a batch-settlement refund request's). */
  skipHandler: { contentType?: string; body?: unknown } | undefined;
  /** run: what a batch-settlement refund request gives back and claims (atomic USDC), read before it settles. */
  refund: BatchRefund | undefined;
  /** verify: the payment passed; until settlement is asked, a call that ends lets its scheme know. */
  verified = false;
  /** claim: the payment's pending ledger row */
  entry!: LedgerEntry & { nonceKey: string };
  ledgerId!: number;
  /** run: the handler's answer, a 200 (any other ends the call) */
  outcome!: Extract<Outcome<unknown>, { status: 200 }>;
  /** bill: the answer's bytes and digest (the ledger row and the receipt bind the same), and what to settle */
  text!: string;
  responseSha256!: string;
  amount!: string;
  /** settle: the facilitator's answer, and why its outcome is left to the chain when it is */
  settlement!: SettleResponse;
  undecided: string | undefined;

  // What the call holds, given back on every exit (charge.ts) unless a stage hands it on:
  /** One of this node's paid-call slots, from admit to the end of the call. */
  holdsSlot = false;
  /** The payment's claim, from the claim until settlement is attempted (from then on the chain decides it). */
  holdsClaim = false;
  /** The payment identifier reserved for this request, until its answer is kept (or left to the chain). */
  reservation: AnswerKey | undefined;

  constructor(request: PaidRequest) {
    this.request = request;
  }
}

/** A stage answers the request (the call ends there) or hands on to the next stage. */
export type Stage = (
  seller: Seller,
  call: PaidCall,
) => PaidOutcome | undefined | Promise<PaidOutcome | undefined>;
