// The paid request, step by step (docs/architecture.md): challenge, claim, verify, run, settle only on 2xx.
// Header encoding, requirement matching and facilitator calls are @x402/core's; this file decides the order.
import type { x402ResourceServer } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
} from "@x402/core/types";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import type { AnyProduct, Outcome, PaymentContext } from "../../catalog/product.ts";
import { type Config, SETTLEMENT_MARGIN_MS } from "../../config.ts";
import type { Logger } from "../../log.ts";
import type { PaywallEvents } from "../../observability/paywall-events.ts";
import { JSON_HEADERS, jsonResponse, outcomeResponse } from "../../responses.ts";
import { sha256 } from "../../sha256.ts";
import type { LedgerEntry, ResolveOptions } from "../../store/ledger.ts";
import type { PaidAnswerRow } from "../../store/paid-answers.ts";
import type { LedgerState } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { decodeHeaderJson, decodePaymentSignature, encodePaymentResponse } from "../shared/header-codec.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import { permit2AuthorizationOf, UPTO } from "../shared/upto-payload.ts";
import { createSettlementChains, type SettlementChain } from "./chain/index.ts";
import { payerOf, paymentNonceKey } from "./payment-identity.ts";
import { OUT_OF_TIME, paymentPrecheck } from "./payment-precheck.ts";
import {
  OFFER_VALIDITY_SECONDS,
  type OfferExtension,
  ReceiptIssuer,
  receiptExtension,
  routeUrlOf,
} from "./receipts/issuer.ts";
import { receiptKey, SIGNING_KEY_FILE } from "./receipts/signing-key.ts";
import {
  type AnswerKey,
  conflictResponse,
  PAYMENT_ID_PARAMETER,
  PAYMENT_IDENTIFIER_DECLARATION,
  type PaidAnswer,
  PaidAnswers,
  paidAnswerResponse,
  paymentIdOf,
} from "./retries/paid-answers.ts";
import { serviceMetadata } from "./service-metadata.ts";
import { type SettlementStatus, UncertainSettlements } from "./uncertain-settlements.ts";
import { billedByUse, uptoNetworks, uptoSettlementAmount } from "./upto-offer.ts";

/** Stands in for the resource URL while a product's 402 is built once; never a real request's URL. */
const URL_MARK = "https://paycall.invalid/resource-url-mark";

/** A JSON text cut where the resource URL goes: [before, after]. */
type SplitJson = [string, string];

/**
 * The PAYMENT-REQUIRED header's JSON cut around the resource URL, with both sides base64-encoded ahead: base64
 * codes 3 bytes at a time, so `before` is encoded up to its last whole group (`headB64`, the 0–2 bytes left go
 * with the URL), and `after` from 0, 1 or 2 bytes in (`tailB64[k]`, the k bytes that complete the URL's last
 * group go with it). A 402 then encodes only the URL's few dozen bytes instead of 5 KB of JSON.
 */
interface SplitBase64 {
  headB64: string;
  headRest: Buffer;
  after: Buffer;
  tailB64: [string, string, string];
}

interface ChallengeTemplate {
  header: SplitBase64;
  body: SplitJson;
}

/**
 * The PAYMENT-REQUIRED header's budget: proxies with default buffers refuse larger response headers (nginx's
 * 4–8 KB proxy buffer answers 502), less room for a long request URL, which the header names.
 */
const HEADER_BUDGET = 8192 - 512;

function base64Length(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 3) * 4;
}

/** A template is rebuilt (its offers signed again) after this long, well before its offers expire. */
const TEMPLATE_REFRESH_MS = (OFFER_VALIDITY_SECONDS * 1000) / 2;

function splitAtMark(json: string): SplitJson {
  const at = json.indexOf(URL_MARK);
  if (at < 0 || json.indexOf(URL_MARK, at + 1) >= 0) {
    throw new Error("the 402 template must name the resource URL exactly once");
  }
  return [json.slice(0, at), json.slice(at + URL_MARK.length)];
}

function splitBase64([before, after]: SplitJson): SplitBase64 {
  const head = Buffer.from(before, "utf8");
  const whole = head.length - (head.length % 3);
  const tail = Buffer.from(after, "utf8");
  return {
    headB64: head.subarray(0, whole).toString("base64"),
    headRest: Buffer.from(head.subarray(whole)),
    after: tail,
    tailB64: [0, 1, 2].map((k) => tail.subarray(k).toString("base64")) as [string, string, string],
  };
}

/** base64 of before + the escaped URL + after, from the parts encoded ahead. */
function encodeAround(split: SplitBase64, escapedUrl: string): string {
  const url = Buffer.from(escapedUrl, "utf8");
  const middle = split.headRest.length + url.length;
  const borrow = Math.min((3 - (middle % 3)) % 3, split.after.length);
  const group = Buffer.concat([split.headRest, url, split.after.subarray(0, borrow)], middle + borrow);
  return split.headB64 + group.toString("base64") + split.tailB64[borrow];
}

/** The 402 for one URL: the URL spliced in as a JSON string's content, the header base64 of the UTF-8. */
function fillChallenge(template: ChallengeTemplate, url: string): ChallengeParts {
  const escaped = JSON.stringify(url).slice(1, -1);
  const [bodyBefore, bodyAfter] = template.body;
  return {
    header: encodeAround(template.header, escaped),
    body: bodyBefore + escaped + bodyAfter,
  };
}
/** How soon a buyer whose payment is held by a request still running may retry with it. */
const IN_FLIGHT_RETRY_AFTER_SEC = 15;

/** How soon a buyer told `settlement_unknown` may retry with the same payment. */
const UNKNOWN_RETRY_AFTER_SEC = 15;

/** A facilitator answer that does not say whether the transfer happened: the chain decides. */
function settlementUndecided(settlement: SettleResponse, httpStatus?: number): boolean {
  return settlement.errorReason === "settlement_pending" || (httpStatus !== undefined && httpStatus >= 500);
}

/**
 * What the ledger row keeps of a payment while its outcome is open: what the chain check reads (the signed
 * authorization or transaction, and what it paid for), not the 12 KB of extensions the payload echoes.
 */
function chainEvidence(payload: PaymentPayload): PaymentPayload {
  return { x402Version: payload.x402Version, accepted: payload.accepted, payload: payload.payload };
}

/** When the handler's answer must be ready: its budget, and in time to settle before validBefore. */
function handlerDeadline(config: Config, payload: PaymentPayload, now = Date.now()): number {
  const validBefore =
    (payload.payload as { authorization?: { validBefore?: unknown } } | undefined)?.authorization
      ?.validBefore ?? permit2AuthorizationOf(payload.payload)?.deadline;
  const budget = now + config.handlerBudgetMs;
  if (typeof validBefore !== "string" || !/^\d+$/.test(validBefore)) return budget;
  return Math.min(budget, Number(validBefore) * 1000 - config.facilitatorTimeoutMs - SETTLEMENT_MARGIN_MS);
}

class HandlerTimeout extends Error {}

async function runWithin<T>(deadline: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeout()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

export interface PaidRequest {
  product: AnyProduct;
  priceUsd: string;
  resourceUrl: string;
  requestHash: string;
  freeSampleUrl?: string;
  extensions: Record<string, unknown>;
  paymentHeader: string;
  run: (payment: PaymentContext) => Promise<Outcome<unknown>>;
}

/** The encoded `PAYMENT-REQUIRED` header and JSON body of one 402. */
export interface ChallengeParts {
  header: string;
  body: string;
}

export function challengeResponse(parts: ChallengeParts): Response {
  return new Response(parts.body, {
    status: 402,
    headers: { ...JSON_HEADERS, "payment-required": parts.header, "cache-control": "no-store" },
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Paywall {
  private readonly server: x402ResourceServer;
  private readonly config: Config;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly requirementsByPrice = new Map<string, Promise<PaymentRequirements[]>>();
  private readonly challengeTemplates = new Map<
    string,
    { refreshAt: number; template: Promise<ChallengeTemplate> }
  >();
  /** Settlements the facilitator left undecided, decided by the chain. */
  readonly uncertain: UncertainSettlements;
  /** Signs the 402's offers and each paid answer's receipt. */
  readonly receipts: ReceiptIssuer;
  /** Paid answers kept for retries with the same payment identifier. */
  readonly answers: PaidAnswers;
  private events: PaywallEvents | undefined;

  constructor(
    server: x402ResourceServer,
    config: Config,
    store: Store,
    log: Logger,
    chainFor: (network: string) => SettlementChain = createSettlementChains(config, store),
  ) {
    this.server = server;
    this.config = config;
    this.store = store;
    this.log = log;
    this.uncertain = new UncertainSettlements(config, store, log, chainFor);
    const key = receiptKey(config);
    this.receipts = new ReceiptIssuer(key, config.publicUrl);
    this.answers = new PaidAnswers(store, key.answerKey, config.paidAnswerRetentionMs);
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
   * One `exact` entry per configured network, then, for a product billed by use, one `upto` entry per EVM
   * network whose facilitator settles upto (the price is then the most the call can cost). Built once per
   * price by the schemes.
   */
  requirements(priceUsd: string, byUse = false): Promise<PaymentRequirements[]> {
    const key = byUse ? `${priceUsd}|${UPTO}` : priceUsd;
    let cached = this.requirementsByPrice.get(key);
    if (!cached) {
      const option = (scheme: string, network: NetworkInfo) => ({
        scheme,
        network: network.caip2,
        payTo: (network.kind === "evm" ? this.config.payTo.evm : this.config.payTo.solana) as string,
        price: `$${priceUsd}`,
        maxTimeoutSeconds: this.config.maxTimeoutSeconds,
      });
      const options = this.config.networks.map((network) => option("exact", network));
      if (byUse) {
        for (const network of uptoNetworks(this.server, this.config.networks))
          options.push(option(UPTO, network));
      }
      cached = this.server.buildPaymentRequirementsFromOptions(options, {});
      cached.catch(() => this.requirementsByPrice.delete(key));
      this.requirementsByPrice.set(key, cached);
    }
    return cached;
  }

  /** The 402: `PAYMENT-REQUIRED` header and a JSON body with the same accepts and the free sample. */
  async challenge(
    request: Omit<PaidRequest, "paymentHeader" | "run" | "requestHash">,
    error = "payment_required",
    message?: string,
  ): Promise<Response> {
    return challengeResponse(await this.challengeParts(request, error, message));
  }

  async challengeParts(
    request: Omit<PaidRequest, "paymentHeader" | "run" | "requestHash">,
    error = "payment_required",
    message?: string,
  ): Promise<ChallengeParts> {
    const key = `${request.product.sku}|${request.priceUsd}|${error}|${message ?? ""}`;
    const now = Date.now();
    let entry = this.challengeTemplates.get(key);
    if (!entry || entry.refreshAt <= now) {
      const fresh = {
        refreshAt: now + TEMPLATE_REFRESH_MS,
        template: this.buildChallengeTemplate(request, error, message),
      };
      fresh.template.catch(() => {
        if (this.challengeTemplates.get(key) === fresh) this.challengeTemplates.delete(key);
      });
      this.challengeTemplates.set(key, fresh);
      entry = fresh;
    }
    return fillChallenge(await entry.template, request.resourceUrl);
  }

  /**
   * The 402 of one product, price and error for any URL: the SDK's PAYMENT-REQUIRED JSON and our body, built
   * once with a marker in place of the resource URL and split around it (the URL is the only part that
   * differs between two requests of one product). Its signed offers name the product's route URL, not the
   * request's, so they too are signed once per product, price and key (and again before they expire).
   */
  private async buildChallengeTemplate(
    request: Omit<PaidRequest, "paymentHeader" | "run" | "requestHash">,
    error: string,
    message: string | undefined,
  ): Promise<ChallengeTemplate> {
    const accepts = await this.requirements(request.priceUsd, billedByUse(request.product));
    const routeUrl = routeUrlOf(this.config.publicUrl, request.product.path);
    const build = (offers: OfferExtension) =>
      this.server.createPaymentRequiredResponse(
        accepts,
        {
          url: URL_MARK,
          description: request.product.summary,
          mimeType: "application/json",
          ...serviceMetadata(this.config, request.product),
        },
        error,
        { ...request.extensions, ...PAYMENT_IDENTIFIER_DECLARATION, [OFFER_RECEIPT]: offers },
      );
    let offers = await this.receipts.offerExtension(accepts, routeUrl);
    let paymentRequired = await build(offers);
    // Past the header budget the signed offers of the last accepts are left out (an offer is optional per accept).
    while (base64Length(JSON.stringify(paymentRequired)) > HEADER_BUDGET && offers.info.offers.length > 1) {
      offers = { ...offers, info: { ...offers.info, offers: offers.info.offers.slice(0, -1) } };
      paymentRequired = await build(offers);
    }
    const body: Record<string, unknown> = {
      x402Version: 2,
      error,
      message:
        message ??
        `This request costs ${request.priceUsd} USD in USDC. Pay with x402 and repeat it with a PAYMENT-SIGNATURE header.${
          accepts.some((a) => a.scheme === UPTO)
            ? " Paid with the upto scheme, that is the most it costs: you are charged what the call used."
            : ""
        }`,
      accepts: paymentRequired.accepts,
      resource: paymentRequired.resource,
    };
    if (request.freeSampleUrl) body.freeSample = request.freeSampleUrl;
    return {
      header: splitBase64(splitAtMark(JSON.stringify(paymentRequired))),
      body: splitAtMark(JSON.stringify(body)),
    };
  }

  /** A request carrying `PAYMENT-SIGNATURE`: nothing of the answer leaves unless settlement succeeds. */
  async charge(request: PaidRequest): Promise<Response> {
    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignature(request.paymentHeader);
    } catch {
      return this.challenge(
        request,
        "invalid_payment_header",
        "The PAYMENT-SIGNATURE header is not base64-encoded x402 JSON.",
      );
    }
    const accepts = await this.requirements(request.priceUsd, billedByUse(request.product));
    const requirements = payload?.accepted
      ? this.server.findMatchingRequirements(accepts, payload)
      : undefined;
    if (!requirements) {
      return this.challenge(
        request,
        "no_matching_requirements",
        "The payment does not match what this request costs (network, asset, amount, payTo or scheme differ).",
      );
    }

    const paymentId = paymentIdOf(payload);
    if (paymentId.invalid !== undefined) {
      return jsonResponse(400, {
        error: "invalid_parameter",
        parameter: PAYMENT_ID_PARAMETER,
        message: `${PAYMENT_ID_PARAMETER}: ${paymentId.invalid}`,
        charged: false,
      });
    }

    // The cheap checks (shape, recipient, amount, time window) before any store write or facilitator call:
    // a payment that cannot verify costs no more than a 402.
    const nonceKey = paymentNonceKey(payload);
    const problem = paymentPrecheck(payload, requirements);
    if (problem === OUT_OF_TIME)
      return this.refusedOrPresentedAgain(
        request,
        nonceKey,
        paymentId.id,
        "invalid_payment",
        `The payment cannot be accepted: ${problem}.`,
      );
    if (problem)
      return this.challenge(request, "invalid_payment", `The payment cannot be accepted: ${problem}.`);

    const entry = {
      sku: request.product.sku,
      requestHash: request.requestHash,
      network: requirements.network,
      payer: payerOf(payload),
      amount: requirements.amount,
      asset: requirements.asset,
      payTo: requirements.payTo,
      responseSha256: "",
      transaction: null,
      state: "pending" as const,
      paymentPayload: chainEvidence(payload),
      requirements,
      nonceKey,
    };

    // Verify before the claim: a payment that does not verify writes nothing. Verify moves no money, so a
    // process that stops before the claim leaves nothing to decide.
    let verifiedPayer: string | undefined;
    try {
      const verified = await this.server.verifyPayment(payload, requirements, request.extensions);
      verifiedPayer = verified.payer;
      if (!verified.isValid) {
        return this.refusedOrPresentedAgain(
          request,
          nonceKey,
          paymentId.id,
          verified.invalidReason ?? "invalid_payment",
          verified.invalidMessage ?? "The facilitator refused the payment.",
        );
      }
    } catch (error) {
      if (error instanceof VerifyError) {
        return this.refusedOrPresentedAgain(
          request,
          nonceKey,
          paymentId.id,
          error.invalidReason ?? "invalid_payment",
          error.invalidMessage ?? "The facilitator refused the payment.",
        );
      }
      this.events?.facilitatorError("verify");
      this.log.warn({ sku: request.product.sku, err: errorText(error) }, "facilitator verify failed");
      return jsonResponse(502, {
        error: "facilitator_unavailable",
        message: "The payment facilitator did not answer the verification; nothing was charged. Try again.",
        charged: false,
      });
    }

    // The claim opens the pending row with it: if this process stops anywhere before the outcome is written,
    // the worker finds the row and asks the chain, so no settlement is ever missing from the ledger.
    const ledgerId = await this.store.ledger.claim(entry);
    if (ledgerId === undefined) return this.presentedAgain(request, nonceKey, paymentId.id);

    let settleAttempted = false;
    /** The payment identifier this request holds, freed again unless its answer is kept (or undecided). */
    let reserved: AnswerKey | undefined;
    let keepReservation = false;
    try {
      // A payment identifier already answered: its answer again, and this new payment is never settled.
      const idPayer = payerOf(payload) ?? verifiedPayer;
      if (paymentId.id !== undefined && idPayer) {
        const key = { paymentId: paymentId.id, payer: idPayer };
        const taken = await this.takePaymentId(key, request.requestHash, nonceKey);
        if (taken !== true) return taken;
        reserved = key;
      }

      let outcome: Outcome<unknown>;
      try {
        outcome = await runWithin(handlerDeadline(this.config, payload), () =>
          request.run({
            payer: payerOf(payload),
            network: requirements.network,
            scheme: requirements.scheme,
          }),
        );
      } catch (error) {
        if (error instanceof HandlerTimeout) {
          this.log.warn({ sku: request.product.sku }, "handler too slow to settle in time");
          return jsonResponse(504, {
            error: "answer_too_slow",
            message:
              "The answer took too long to be settled before your payment authorization expires; nothing was charged. Try again.",
            charged: false,
          });
        }
        this.log.error({ sku: request.product.sku, err: errorText(error) }, "handler threw");
        return jsonResponse(500, {
          error: "internal_error",
          message: "The request failed on our side; nothing was charged.",
          charged: false,
        });
      }
      if (outcome.status !== 200) return outcomeResponse(outcome);

      // Hashed once: the ledger row and the receipt bind the same digest of the bytes delivered.
      const text = JSON.stringify(outcome.body);
      const responseSha256 = sha256(text);
      // upto settles what the answer used (at most the authorized maximum); exact the price asked.
      const metered = requirements.scheme === UPTO;
      const amount = metered ? uptoSettlementAmount(requirements, outcome.used) : requirements.amount;
      const resolveLedger = (
        state: LedgerState,
        transaction: string | null,
        errorReason: string | null,
        payer?: string,
        options: { delivered?: boolean; heldResponse?: string } = {},
      ) =>
        this.resolveLedger(
          ledgerId,
          { ...entry, amount, responseSha256, state, transaction, errorReason, payer: payer ?? entry.payer },
          { ...options, responseSha256, amount },
        );

      let settlement: SettleResponse;
      let undecided: string | undefined;
      const settleStarted = performance.now();
      // From here the payment may have moved: whatever fails next, its claim and pending row stay, and the
      // chain decides the row.
      settleAttempted = true;
      try {
        settlement = await this.server.settlePayment(
          payload,
          requirements,
          request.extensions,
          undefined,
          metered ? { amount } : undefined,
        );
        if (!settlement.success && settlementUndecided(settlement)) undecided = settlement.errorReason;
      } catch (error) {
        settlement = {
          success: false,
          errorReason: error instanceof SettleError ? error.errorReason : undefined,
          errorMessage: error instanceof SettleError ? error.errorMessage : undefined,
          transaction: "",
          network: requirements.network,
        };
        if (!(error instanceof SettleError)) this.events?.facilitatorError("settle");
        if (!(error instanceof SettleError) || settlementUndecided(settlement, error.statusCode)) {
          undecided = errorText(error);
        }
      }
      const extensionResponses = (settlement as { extensionResponses?: Record<string, unknown> })
        .extensionResponses;
      if (extensionResponses) this.events?.extensionResponses(request.product.sku, extensionResponses);
      this.events?.settleEnded(
        request.product.sku,
        requirements.network,
        performance.now() - settleStarted,
        undecided !== undefined
          ? "unknown"
          : settlement.success
            ? undefined
            : (settlement.errorReason ?? "settlement_failed"),
      );

      if (undecided !== undefined) {
        // Never settled again: the chain decides, and the buyer's retry with this payment gets the answer
        // (held here) once it shows the payment. The claim stays, so the payment cannot be used elsewhere; so
        // does the payment identifier's reservation, whose answer is kept once that retry delivers it.
        keepReservation = true;
        const id = await resolveLedger(
          "unknown",
          settlement.transaction || null,
          `settlement outcome unknown: ${undecided}`.slice(0, 500),
          settlement.payer,
          { heldResponse: text },
        );
        await this.uncertain.queue(id);
        this.log.error(
          { sku: request.product.sku, ledgerId: id, err: undecided },
          "settlement outcome unknown; the chain will decide",
        );
        return jsonResponse(
          502,
          {
            error: "settlement_unknown",
            message:
              "The facilitator did not confirm the settlement. No data was delivered and the payment is not settled again: retry this request with the same PAYMENT-SIGNATURE. Once the chain shows the payment you get the answer; if it never settles, nothing is charged.",
            charged: "unknown",
            retryAfterSec: UNKNOWN_RETRY_AFTER_SEC,
            reference: `ledger-${id}`,
          },
          { "retry-after": String(UNKNOWN_RETRY_AFTER_SEC), "cache-control": "no-store" },
        );
      }

      if (!settlement.success) {
        await resolveLedger(
          "failed",
          settlement.transaction || null,
          settlement.errorReason ?? "settlement_failed",
          settlement.payer,
        );
        return jsonResponse(
          402,
          {
            x402Version: 2,
            error: settlement.errorReason ?? "settlement_failed",
            message: "The payment could not be settled; no data was delivered.",
            charged: false,
          },
          { "payment-response": encodePaymentResponse(settlement), "cache-control": "no-store" },
        );
      }

      const payer = settlement.payer ?? entry.payer;
      // PAYMENT-RESPONSE states the amount settled (the upto spec's SettlementResponse field; exact's price).
      settlement.amount ??= amount;
      // The buyer has paid: a store fault from here on is logged, never turned into a lost answer.
      const paid = await this.signedPaymentResponse(
        settlement,
        request,
        responseSha256,
        payer,
        outcome.used?.counts,
      );
      await resolveLedger("settled", settlement.transaction, null, payer ?? undefined, { delivered: true });
      if (outcome.onSettled) {
        try {
          await outcome.onSettled({
            network: requirements.network,
            payer,
            transaction: settlement.transaction,
            amount: settlement.amount,
            ...(paid.receipt ? { receipt: paid.receipt } : {}),
          });
        } catch (error) {
          this.log.error({ sku: request.product.sku, err: errorText(error) }, "after-settlement step failed");
        }
      }
      const answer = { body: text, paymentResponse: paid.header };
      if (reserved) {
        keepReservation = true;
        await this.keepAnswer(reserved, request.requestHash, answer);
      }
      return paidAnswerResponse(answer);
    } finally {
      if (!settleAttempted) {
        await this.store.ledger
          .release(nonceKey)
          .catch((e: unknown) => this.log.error({ err: errorText(e) }, "could not release a payment claim"));
      }
      if (reserved && !keepReservation) {
        await this.answers
          .release(reserved)
          .catch((e: unknown) =>
            this.log.error({ err: errorText(e) }, "could not free a payment identifier"),
          );
      }
    }
  }

  /**
   * A payment the facilitator refused: a payment already claimed here (a retry after settlement_unknown, a
   * replay) is answered as one; any other gets the 402 with the facilitator's reason.
   */
  private async refusedOrPresentedAgain(
    request: PaidRequest,
    nonceKey: string,
    paymentId: string | undefined,
    reason: string,
    message: string,
  ): Promise<Response> {
    if (await this.store.ledger.findByNonceKey(nonceKey))
      return this.presentedAgain(request, nonceKey, paymentId);
    return this.challenge(request, reason, message);
  }

  /**
   * A payment already claimed. Kept under its payment identifier: that answer again. Otherwise the retry of
   * a buyer told settlement_unknown gets the chain's decision, and any other reuse is refused.
   */
  private async presentedAgain(
    request: PaidRequest,
    nonceKey: string,
    paymentId: string | undefined,
  ): Promise<Response> {
    const row = paymentId === undefined ? undefined : await this.answers.findByPayment(paymentId, nonceKey);
    if (row && (row.state === "stored" || row.request_hash !== request.requestHash)) {
      return this.answerOf(row, request);
    }
    const again = await this.uncertain.presentedAgain(nonceKey, request.requestHash, request.run);
    if (again === "expired") {
      return this.challenge(
        request,
        "payment_expired",
        "This payment was never settled and its authorization has expired; nothing was charged. Sign a new one.",
      );
    }
    if (again === "in-flight") {
      // A replay of a call still running, or the retry of one whose node just stopped: refused as a reuse,
      // but never told to pay again, as the first call may charge it.
      const refused = await this.challenge(
        request,
        "payment_already_used",
        `This payment is held by a request still running (or one whose node just stopped). It is never charged twice: if you did not get that request's answer, retry with the same PAYMENT-SIGNATURE after ${IN_FLIGHT_RETRY_AFTER_SEC} seconds.`,
      );
      refused.headers.set("retry-after", String(IN_FLIGHT_RETRY_AFTER_SEC));
      return refused;
    }
    if (!again) {
      return this.challenge(
        request,
        "payment_already_used",
        "This payment was already used; sign a new one.",
      );
    }
    if (again.status !== 200) return again;
    // A settlement the chain confirmed late: the answer gets its receipt, and is kept for the payment id.
    const body = await again.text();
    const settlement = decodeHeaderJson<SettleResponse>(again.headers.get("payment-response") ?? "");
    const paid = await this.signedPaymentResponse(
      settlement,
      request,
      sha256(body),
      settlement.payer ?? null,
    );
    const answer = { body, paymentResponse: paid.header };
    if (row) await this.keepAnswer({ paymentId: row.payment_id, payer: row.payer }, row.request_hash, answer);
    return paidAnswerResponse(answer);
  }

  /**
   * Takes a payment identifier for this request: true, or the answer to give instead (the kept answer of the
   * same request, or 409 for another request or one still running).
   */
  private async takePaymentId(
    key: AnswerKey,
    requestHash: string,
    nonceKey: string,
  ): Promise<true | Response> {
    if (await this.answers.reserve(key, requestHash, nonceKey)) return true;
    const row = await this.answers.find(key);
    if (row && (await this.abandoned(row))) {
      await this.answers.release(key);
      if (await this.answers.reserve(key, requestHash, nonceKey)) return true;
    }
    // Gone between the two queries (expired or freed): the next request with it starts afresh.
    if (!row) return conflictResponse({ request_hash: requestHash }, requestHash);
    return this.answerOf(row, { requestHash });
  }

  /**
   * A reservation whose payment will never deliver: the chain showed it expired unspent, or its request
   * stopped before any settlement was attempted (no ledger row, and its authorization window is over).
   */
  private async abandoned(row: PaidAnswerRow): Promise<boolean> {
    if (row.state !== "pending") return false;
    const ledger = await this.store.ledger.findByNonceKey(row.nonce_key);
    if (ledger) return ledger.state === "failed";
    return Date.now() - Date.parse(row.created_at) > this.config.maxTimeoutSeconds * 1000;
  }

  /** What a kept payment identifier answers: its answer to the same request, else 409. */
  private answerOf(row: PaidAnswerRow, request: Pick<PaidRequest, "requestHash">): Response {
    if (row.state !== "stored" || row.request_hash !== request.requestHash) {
      return conflictResponse(row, request.requestHash);
    }
    try {
      const answer = this.answers.open(row);
      this.log.info({ paymentId: row.payment_id }, "paid answer given again for a retry; nothing settled");
      return paidAnswerResponse(answer);
    } catch (error) {
      this.log.error(
        { paymentId: row.payment_id, err: errorText(error) },
        "a kept paid answer cannot be opened (another RECEIPT_SIGNING_KEY?)",
      );
      return jsonResponse(503, {
        error: "answer_unavailable",
        message:
          "The answer paid for with this payment identifier cannot be read back on this server; this request was not charged. Contact the operator with your PAYMENT-RESPONSE.",
        charged: false,
      });
    }
  }

  /** The PAYMENT-RESPONSE of a settled payment, with a signed receipt of the answer when one can be made. */
  private async signedPaymentResponse(
    settlement: SettleResponse,
    request: Pick<PaidRequest, "product">,
    responseSha256: string,
    payer: string | null,
    usage?: Record<string, number>,
  ): Promise<{ header: string; receipt?: string }> {
    if (!payer) return { header: encodePaymentResponse(settlement) };
    try {
      const receipt = await this.receipts.receipt({
        routeUrl: routeUrlOf(this.config.publicUrl, request.product.path),
        payer,
        network: settlement.network,
        transaction: settlement.transaction,
        responseSha256,
        ...(usage && settlement.amount !== undefined ? { amount: settlement.amount, usage } : {}),
      });
      const extensions = { ...settlement.extensions, ...receiptExtension(receipt) };
      return {
        header: encodePaymentResponse({ ...settlement, extensions }),
        receipt: receipt.signature,
      };
    } catch (error) {
      this.log.error({ sku: request.product.sku, err: errorText(error) }, "could not sign a receipt");
      return { header: encodePaymentResponse(settlement) };
    }
  }

  /** Keeps a delivered answer for retries; a store fault is logged (the buyer has the answer already). */
  private async keepAnswer(key: AnswerKey, requestHash: string, answer: PaidAnswer): Promise<void> {
    await this.answers
      .keep({ payment_id: key.paymentId, payer: key.payer, request_hash: requestHash }, answer)
      .catch((e: unknown) =>
        this.log.error({ paymentId: key.paymentId, err: errorText(e) }, "could not keep a paid answer"),
      );
  }

  /** Sets the outcome on the payment's row; a store fault is logged with everything but the signed payload. */
  private async resolveLedger(id: number, entry: LedgerEntry, options: ResolveOptions): Promise<number> {
    try {
      await this.store.ledger.resolve(id, entry.state, entry.transaction, entry.errorReason ?? null, {
        payer: entry.payer,
        ...options,
      });
    } catch (error) {
      const { paymentPayload: _payload, ...loggable } = entry;
      this.log.error(
        { ledgerId: id, ledger: loggable, err: errorText(error) },
        "LEDGER WRITE FAILED: record this settlement outcome by hand",
      );
    }
    return id;
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
