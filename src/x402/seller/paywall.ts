// The paywall: the seller's side of x402 for every paid route. Its 402 is challenge.ts's; a paid call goes
// through the stages of paid-call/ (decode, match, precheck, verify, claim, run, settle, record); uncertain
// settlements are uncertain-settlements.ts's. Header encoding, requirement matching and facilitator calls are
// @x402/core's.
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import type { PaywallEvents } from "../../observability/paywall-events.ts";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { UPTO } from "../shared/upto-payload.ts";
import { BatchChannels } from "./batch/channel-manager.ts";
import { BATCH, batchNetworks } from "./batch/offer.ts";
import { createSettlementChains, type SettlementChain } from "./chain/index.ts";
import { type ChallengeParts, type ChallengeRequest, ChallengeTemplates } from "./challenge.ts";
import { FollowingResourceServer } from "./facilitators/following-server.ts";
import type { FacilitatorSet } from "./facilitators/set.ts";
import type { PaidRequest, Seller } from "./paid-call/call.ts";
import { charge } from "./paid-call/charge.ts";
import type { PaidOutcome } from "./paid-call/outcome.ts";
import { PaidCallSlots } from "./paid-call/slots.ts";
import type { Pricing } from "./pricing.ts";
import { ReceiptIssuer } from "./receipts/issuer.ts";
import { receiptKey, SIGNING_KEY_FILE } from "./receipts/signing-key.ts";
import { solanaHintRefreshMs } from "./resource-server.ts";
import { PaidAnswers } from "./retries/paid-answers.ts";
import { type SettlementStatus, UncertainSettlements } from "./uncertain-settlements.ts";
import { uptoNetworks } from "./upto-offer.ts";

export class Paywall {
  private readonly server: x402ResourceServer;
  private readonly config: Config;
  private readonly requirementsByPrice = new Map<string, Promise<PaymentRequirements[]>>();
  private challenges: ChallengeTemplates;
  private readonly newTemplates: () => ChallengeTemplates;
  private readonly hintRefreshMs: number | undefined;
  private hintsBuiltAt = Date.now();
  /** The facilitators payments go through (their health, for /ready, /admin and stats). */
  readonly facilitators: FacilitatorSet | undefined;
  /** When the facilitators' offer last changed (ms since the epoch): 402s kept from before are stale. */
  offerChangedAt = 0;
  /** What a paid call's stages use of this paywall. */
  private readonly seller: Seller;
  /** Settlements the facilitator left undecided, decided by the chain. */
  readonly uncertain: UncertainSettlements;
  /** Signs the 402's offers and each paid answer's receipt. */
  readonly receipts: ReceiptIssuer;
  /** Paid answers kept for retries with the same payment identifier. */
  readonly answers: PaidAnswers;
  /** This node's paid calls in flight, bounded by PAID_CALLS_MAX_IN_FLIGHT. */
  readonly slots: PaidCallSlots;
  private events: PaywallEvents | undefined;
  /** The batch-settlement channels' claims, settlements and refunds (with a facilitator set to send them to). */
  readonly batch: BatchChannels | undefined;

  constructor(
    server: x402ResourceServer,
    config: Config,
    store: Store,
    log: Logger,
    chainFor: (network: string) => SettlementChain = createSettlementChains(config, store),
  ) {
    this.server = server;
    this.config = config;
    this.uncertain = new UncertainSettlements(config, store, log, chainFor);
    const key = receiptKey(config);
    this.receipts = new ReceiptIssuer(key, config.publicUrl);
    this.answers = new PaidAnswers(store, key.answerKey, config.paidAnswerRetentionMs);
    this.slots = new PaidCallSlots(config.paidCallsMaxInFlight);
    const requirements = (priceUsd: string, pricing: Pricing) => this.requirements(priceUsd, pricing);
    const templates = () => new ChallengeTemplates({ server, config, receipts: this.receipts, requirements });
    this.newTemplates = templates;
    this.challenges = templates();
    this.hintRefreshMs = solanaHintRefreshMs(config);
    this.facilitators = server instanceof FollowingResourceServer ? server.facilitators : undefined;
    this.batch = this.facilitators && new BatchChannels(server, this.facilitators, config, store, log);
    // What the facilitators settle changed: the 402s and requirements built from the old offer are dropped.
    this.facilitators?.onOfferChange(() => {
      this.requirementsByPrice.clear();
      this.challenges = templates();
      this.offerChangedAt = Date.now();
    });
    this.seller = {
      server,
      config,
      store,
      log,
      uncertain: this.uncertain,
      receipts: this.receipts,
      answers: this.answers,
      slots: this.slots,
      events: () => this.events,
      requirements,
      challenge: async (request, error, message) => ({
        kind: "payment-required",
        challenge: await this.challengeParts(request, error, message),
      }),
      challengeFor: async (request, payload, error, message) => ({
        kind: "payment-required",
        challenge: await this.challenges.forPayment(request, error, message, payload),
      }),
    };
    if (key.source === "data-dir-created") {
      log.info(
        { file: SIGNING_KEY_FILE, kid: this.receipts.kid },
        "generated the receipt signing key in DATA_DIR",
      );
    }
    if (key.source !== "setting" && config.database.kind === "postgres") {
      log.warn(
        { kid: this.receipts.kid },
        "RECEIPT_SIGNING_KEY is unset: this node signs with its own DATA_DIR key. Every node sharing this database must share one key (set RECEIPT_SIGNING_KEY on all of them), or receipts verify on one node only and retries cannot open answers kept by another.",
      );
    }
  }

  /** Reports facilitator failures and settlements (metrics). */
  observe(events: PaywallEvents): void {
    this.events = events;
  }

  /**
   * One `exact` entry per configured network some facilitator supports, then, for a product billed by use, one `upto` entry per EVM
   * network whose facilitator settles upto (the price is then the most the call can cost), and for one priced per call one
   * `batch-settlement` entry per EVM network whose facilitator lists it (the price is each voucher's increment).
   * Built once per price by the schemes.
   */
  requirements(priceUsd: string, pricing: Pricing = "fixed"): Promise<PaymentRequirements[]> {
    this.refreshSolanaHints();
    const key = `${priceUsd}|${pricing}`;
    let cached = this.requirementsByPrice.get(key);
    if (!cached) {
      const option = (scheme: string, network: NetworkInfo) => ({
        scheme,
        network: network.caip2,
        payTo: (network.kind === "evm" ? this.config.payTo.evm : this.config.payTo.solana) as string,
        price: `$${priceUsd}`,
        maxTimeoutSeconds: this.config.maxTimeoutSeconds,
      });
      // Only what some facilitator settles now (the SDK refuses to build an offer none supports).
      const offered = (scheme: string, network: NetworkInfo) =>
        this.server.getSupportedKind(2, network.caip2, scheme) !== undefined;
      const options = this.config.networks
        .filter((network) => offered("exact", network))
        .map((network) => option("exact", network));
      if (pricing === "by-use") {
        for (const network of uptoNetworks(this.server, this.config.networks))
          options.push(option(UPTO, network));
      }
      if (pricing === "fixed") {
        for (const network of batchNetworks(this.server, this.config.networks))
          options.push(option(BATCH, network));
      }
      cached = this.server.buildPaymentRequirementsFromOptions(options, {});
      cached.catch(() => this.requirementsByPrice.delete(key));
      this.requirementsByPrice.set(key, cached);
    }
    return cached;
  }

  /** The networks (CAIP-2) on which a product priced per call is also offered under `batch-settlement`. */
  batchNetworks(): string[] {
    return batchNetworks(this.server, this.config.networks).map((n) => n.caip2);
  }

  /** The networks (CAIP-2) on which a product billed by use is also offered under `upto`. */
  uptoNetworks(): string[] {
    return uptoNetworks(this.server, this.config.networks).map((n) => n.caip2);
  }

  /** The 402: `PAYMENT-REQUIRED` header and a JSON body with the same accepts and the free sample. */
  challengeParts(
    request: ChallengeRequest,
    error = "payment_required",
    message?: string,
  ): Promise<ChallengeParts> {
    this.refreshSolanaHints();
    return this.challenges.parts(request, error, message);
  }

  /** Offers carrying a Solana blockhash hint are dropped before the blockhash dies (resource-server.ts). */
  private refreshSolanaHints(): void {
    if (this.hintRefreshMs === undefined) return;
    const now = Date.now();
    if (now - this.hintsBuiltAt < this.hintRefreshMs) return;
    this.hintsBuiltAt = now;
    this.requirementsByPrice.clear();
    this.challenges = this.newTemplates();
  }

  /** A request carrying a payment: nothing of the answer leaves unless settlement succeeds. */
  charge(request: PaidRequest): Promise<PaidOutcome> {
    return charge(this.seller, request);
  }

  /** Queues a chain check for every uncertain settlement (run periodically by the worker). */
  sweepPending(now = new Date()): Promise<number> {
    return this.uncertain.sweep(now);
  }

  /**
   * Decides an uncertain ledger row (unknown: the facilitator did not say; pending: the process stopped
   * around the settlement) by asking the chain; never by settling again.
   */
  reconcile(ledgerId: number): Promise<"settled" | "failed" | "unknown" | "already-resolved"> {
    return this.uncertain.reconcile(ledgerId);
  }

  /** Uncertain settlements, the RPC alarm and refunds due, for status and stats. */
  settlementStatus(now = new Date()): Promise<SettlementStatus> {
    return this.uncertain.status(now);
  }

  /** Lets the Bazaar extension fill in the method and route template, once per route. */
  enrich(extensions: Record<string, unknown>, method: string, path: string): Record<string, unknown> {
    return this.server.enrichExtensions(extensions, {
      method,
      path,
      routePattern: path,
      adapter: { getPath: () => path },
    });
  }
}
