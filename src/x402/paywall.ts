// The paid request, step by step (ARCHITECTURE.md): challenge, claim, verify, run, settle only on 2xx.
// Header encoding, requirement matching and facilitator calls are @x402/core's; this file decides the order.
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { x402ResourceServer } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
} from "@x402/core/types";
import type { AnyProduct, Outcome, PaymentContext } from "../catalog/product.ts";
import { type Config, SETTLEMENT_MARGIN_MS } from "../config.ts";
import type { Logger } from "../log.ts";
import { JSON_HEADERS, jsonResponse, outcomeResponse } from "../responses.ts";
import { sha256 } from "../sha256.ts";
import type { LedgerEntry } from "../store/ledger.ts";
import type { LedgerState } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { createSettlementChains, type SettlementChain } from "./chain/index.ts";
import { payerOf, paymentNonceKey } from "./payment-identity.ts";
import { type SettlementStatus, UncertainSettlements } from "./uncertain-settlements.ts";

/** Stands in for the resource URL while a product's 402 is built once; never a real request's URL. */
const URL_MARK = "https://paycall.invalid/resource-url-mark";

/** A JSON text cut where the resource URL goes: [before, after]. */
type SplitJson = [string, string];

interface ChallengeTemplate {
  header: SplitJson;
  body: SplitJson;
}

function splitAtMark(json: string): SplitJson {
  const at = json.indexOf(URL_MARK);
  if (at < 0 || json.indexOf(URL_MARK, at + 1) >= 0) {
    throw new Error("the 402 template must name the resource URL exactly once");
  }
  return [json.slice(0, at), json.slice(at + URL_MARK.length)];
}

/** The 402 for one URL: the URL spliced in as a JSON string's content, the header base64 of the UTF-8. */
function fillChallenge(template: ChallengeTemplate, url: string): ChallengeParts {
  const escaped = JSON.stringify(url).slice(1, -1);
  const [headerBefore, headerAfter] = template.header;
  const [bodyBefore, bodyAfter] = template.body;
  return {
    header: Buffer.from(headerBefore + escaped + headerAfter, "utf8").toString("base64"),
    body: bodyBefore + escaped + bodyAfter,
  };
}
/** How soon a buyer told `settlement_unknown` may retry with the same payment. */
const UNKNOWN_RETRY_AFTER_SEC = 15;

/** A facilitator answer that does not say whether the transfer happened: the chain decides. */
function settlementUndecided(settlement: SettleResponse, httpStatus?: number): boolean {
  return settlement.errorReason === "settlement_pending" || (httpStatus !== undefined && httpStatus >= 500);
}

/** When the handler's answer must be ready: its budget, and in time to settle before validBefore. */
function handlerDeadline(config: Config, payload: PaymentPayload, now = Date.now()): number {
  const validBefore = (payload.payload as { authorization?: { validBefore?: unknown } } | undefined)
    ?.authorization?.validBefore;
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
  private readonly challengeTemplates = new Map<string, Promise<ChallengeTemplate>>();
  /** Settlements the facilitator left undecided, decided by the chain. */
  readonly uncertain: UncertainSettlements;

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
  }

  /** One `accepts` entry per configured network, built once per price by the schemes. */
  requirements(priceUsd: string): Promise<PaymentRequirements[]> {
    let cached = this.requirementsByPrice.get(priceUsd);
    if (!cached) {
      const options = this.config.networks.map((network) => ({
        scheme: "exact",
        network: network.caip2,
        payTo: (network.kind === "evm" ? this.config.payTo.evm : this.config.payTo.solana) as string,
        price: `$${priceUsd}`,
        maxTimeoutSeconds: this.config.maxTimeoutSeconds,
      }));
      cached = this.server.buildPaymentRequirementsFromOptions(options, {});
      cached.catch(() => this.requirementsByPrice.delete(priceUsd));
      this.requirementsByPrice.set(priceUsd, cached);
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
    let template = this.challengeTemplates.get(key);
    if (!template) {
      template = this.buildChallengeTemplate(request, error, message);
      template.catch(() => this.challengeTemplates.delete(key));
      this.challengeTemplates.set(key, template);
    }
    return fillChallenge(await template, request.resourceUrl);
  }

  /**
   * The 402 of one product, price and error for any URL: the SDK's PAYMENT-REQUIRED JSON and our body, built
   * once with a marker in place of the resource URL and split around it (the URL is the only part that
   * differs between two requests of one product).
   */
  private async buildChallengeTemplate(
    request: Omit<PaidRequest, "paymentHeader" | "run" | "requestHash">,
    error: string,
    message: string | undefined,
  ): Promise<ChallengeTemplate> {
    const accepts = await this.requirements(request.priceUsd);
    const paymentRequired = await this.server.createPaymentRequiredResponse(
      accepts,
      { url: URL_MARK, description: request.product.summary, mimeType: "application/json" },
      error,
      request.extensions,
    );
    const body: Record<string, unknown> = {
      x402Version: 2,
      error,
      message:
        message ??
        `This request costs ${request.priceUsd} USD in USDC. Pay with x402 and repeat it with a PAYMENT-SIGNATURE header.`,
      accepts: paymentRequired.accepts,
      resource: paymentRequired.resource,
    };
    if (request.freeSampleUrl) body.freeSample = request.freeSampleUrl;
    return { header: splitAtMark(JSON.stringify(paymentRequired)), body: splitAtMark(JSON.stringify(body)) };
  }

  /** A request carrying `PAYMENT-SIGNATURE`: nothing of the answer leaves unless settlement succeeds. */
  async charge(request: PaidRequest): Promise<Response> {
    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignatureHeader(request.paymentHeader);
    } catch {
      return this.challenge(
        request,
        "invalid_payment_header",
        "The PAYMENT-SIGNATURE header is not base64-encoded x402 JSON.",
      );
    }
    const accepts = await this.requirements(request.priceUsd);
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

    const nonceKey = paymentNonceKey(payload);
    if (!(await this.store.nonces.claim(nonceKey, request.product.sku))) {
      // The same payment again: the retry of a buyer told settlement_unknown gets the chain's decision.
      const again = await this.uncertain.presentedAgain(nonceKey, request.requestHash, request.run);
      if (again === "expired") {
        return this.challenge(
          request,
          "payment_expired",
          "This payment was never settled and its authorization has expired; nothing was charged. Sign a new one.",
        );
      }
      return (
        again ??
        this.challenge(request, "payment_already_used", "This payment was already used; sign a new one.")
      );
    }

    let settled = false;
    try {
      try {
        const verified = await this.server.verifyPayment(payload, requirements, request.extensions);
        if (!verified.isValid) {
          return this.challenge(
            request,
            verified.invalidReason ?? "invalid_payment",
            verified.invalidMessage ?? "The facilitator refused the payment.",
          );
        }
      } catch (error) {
        if (error instanceof VerifyError) {
          return this.challenge(
            request,
            error.invalidReason ?? "invalid_payment",
            error.invalidMessage ?? "The facilitator refused the payment.",
          );
        }
        this.log.warn({ sku: request.product.sku, err: errorText(error) }, "facilitator verify failed");
        return jsonResponse(502, {
          error: "facilitator_unavailable",
          message: "The payment facilitator did not answer the verification; nothing was charged. Try again.",
          charged: false,
        });
      }

      let outcome: Outcome<unknown>;
      try {
        outcome = await runWithin(handlerDeadline(this.config, payload), () =>
          request.run({ payer: payerOf(payload), network: requirements.network }),
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

      const text = JSON.stringify(outcome.body);
      const entry = {
        sku: request.product.sku,
        requestHash: request.requestHash,
        network: requirements.network,
        payer: payerOf(payload),
        amount: requirements.amount,
        asset: requirements.asset,
        payTo: requirements.payTo,
        responseSha256: sha256(text),
        transaction: null,
        paymentPayload: payload,
        requirements,
        nonceKey,
      };
      // Written before settling: if this process stops in the middle, the worker finds the row and
      // reconciles it, so no settlement is ever missing from the ledger.
      const ledgerId = await this.recordLedger({ ...entry, state: "pending" });
      const resolveLedger = (
        state: LedgerState,
        transaction: string | null,
        errorReason: string | null,
        payer?: string,
        options: { delivered?: boolean; heldResponse?: string } = {},
      ) =>
        this.resolveLedger(
          ledgerId,
          { ...entry, state, transaction, errorReason, payer: payer ?? entry.payer },
          options,
        );

      let settlement: SettleResponse;
      let undecided: string | undefined;
      try {
        settlement = await this.server.settlePayment(payload, requirements, request.extensions);
        if (!settlement.success && settlementUndecided(settlement)) undecided = settlement.errorReason;
      } catch (error) {
        settlement = {
          success: false,
          errorReason: error instanceof SettleError ? error.errorReason : undefined,
          errorMessage: error instanceof SettleError ? error.errorMessage : undefined,
          transaction: "",
          network: requirements.network,
        };
        if (!(error instanceof SettleError) || settlementUndecided(settlement, error.statusCode)) {
          undecided = errorText(error);
        }
      }

      if (undecided !== undefined) {
        // Never settled again: the chain decides, and the buyer's retry with this payment gets the answer
        // (held here) once it shows the payment. The claim stays, so the payment cannot be used elsewhere.
        settled = true;
        const id = await resolveLedger(
          "unknown",
          settlement.transaction || null,
          `settlement outcome unknown: ${undecided}`.slice(0, 500),
          settlement.payer,
          { heldResponse: text },
        );
        if (id !== undefined) await this.uncertain.queue(id);
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
            ...(id !== undefined ? { reference: `ledger-${id}` } : {}),
          },
          { "retry-after": String(UNKNOWN_RETRY_AFTER_SEC), "cache-control": "no-store" },
        );
      }

      if (!settlement.success) {
        settled = true; // a refused settlement may still have consumed the authorization
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
          { "payment-response": encodePaymentResponseHeader(settlement), "cache-control": "no-store" },
        );
      }

      settled = true;
      const payer = settlement.payer ?? entry.payer;
      // The buyer has paid: a store fault from here on is logged, never turned into a lost answer.
      await resolveLedger("settled", settlement.transaction, null, payer ?? undefined, { delivered: true });
      if (outcome.onSettled) {
        try {
          await outcome.onSettled({
            network: requirements.network,
            payer,
            transaction: settlement.transaction,
            amount: requirements.amount,
          });
        } catch (error) {
          this.log.error({ sku: request.product.sku, err: errorText(error) }, "after-settlement step failed");
        }
      }
      return new Response(text, {
        status: outcome.status,
        headers: {
          ...JSON_HEADERS,
          "payment-response": encodePaymentResponseHeader(settlement),
          "cache-control": "private, no-store",
        },
      });
    } finally {
      if (!settled) {
        await this.store.nonces
          .release(nonceKey)
          .catch((e: unknown) => this.log.error({ err: errorText(e) }, "could not release a payment claim"));
      }
    }
  }

  /** Writes a ledger row; a store fault is logged with everything but the signed payload, never thrown. */
  private async recordLedger(entry: LedgerEntry): Promise<number | undefined> {
    try {
      return await this.store.ledger.record(entry);
    } catch (error) {
      const { paymentPayload: _payload, ...loggable } = entry;
      this.log.error(
        { ledger: loggable, err: errorText(error) },
        "LEDGER WRITE FAILED: record this settlement by hand",
      );
      return undefined;
    }
  }

  /** Sets the outcome on the pending row, or writes the whole row when the pending one could not be written. */
  private async resolveLedger(
    id: number | undefined,
    entry: LedgerEntry,
    options: { delivered?: boolean; heldResponse?: string } = {},
  ): Promise<number | undefined> {
    if (id === undefined) {
      const recorded = await this.recordLedger(entry);
      if (recorded !== undefined && options.heldResponse !== undefined) {
        await this.store.ledger
          .resolve(recorded, entry.state, entry.transaction, entry.errorReason ?? null, options)
          .catch((e: unknown) =>
            this.log.error({ ledgerId: recorded, err: errorText(e) }, "could not hold the answer"),
          );
      }
      return recorded;
    }
    try {
      await this.store.ledger.resolve(id, entry.state, entry.transaction, entry.errorReason ?? null, {
        payer: entry.payer,
        ...options,
      });
      return id;
    } catch (error) {
      const { paymentPayload: _payload, ...loggable } = entry;
      this.log.error(
        { ledgerId: id, ledger: loggable, err: errorText(error) },
        "LEDGER WRITE FAILED: record this settlement outcome by hand",
      );
      return id;
    }
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
