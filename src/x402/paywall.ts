// The paid request, step by step (ARCHITECTURE.md): challenge, claim, verify, run, settle only on 2xx.
// Header encoding, requirement matching and facilitator calls are @x402/core's; this file decides the order.
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import type { x402ResourceServer } from "@x402/core/server";
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
  VerifyError,
} from "@x402/core/types";
import type { AnyProduct, Outcome, PaymentContext } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { JSON_HEADERS, jsonResponse, outcomeResponse } from "../responses.ts";
import { sha256 } from "../sha256.ts";
import type { LedgerEntry } from "../store/ledger.ts";
import type { LedgerState } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { payerOf, paymentNonceKey } from "./payment-identity.ts";

const CHALLENGE_CACHE_SIZE = 4096;

/** Facilitator reasons meaning the authorization was already spent (its transfer went through). */
const SPENT_AUTHORIZATION = /nonce_already_used|duplicate_settlement|authorization_used/i;

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
  private readonly challenges = new Map<string, ChallengeParts>();

  constructor(server: x402ResourceServer, config: Config, store: Store, log: Logger) {
    this.server = server;
    this.config = config;
    this.store = store;
    this.log = log;
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
    const key = `${request.product.sku}|${request.priceUsd}|${error}|${request.resourceUrl}`;
    let entry = this.challenges.get(key);
    if (!entry) {
      const accepts = await this.requirements(request.priceUsd);
      const paymentRequired = await this.server.createPaymentRequiredResponse(
        accepts,
        { url: request.resourceUrl, description: request.product.summary, mimeType: "application/json" },
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
      entry = { header: encodePaymentRequiredHeader(paymentRequired), body: JSON.stringify(body) };
      if (this.challenges.size >= CHALLENGE_CACHE_SIZE) {
        this.challenges.delete(this.challenges.keys().next().value as string);
      }
      this.challenges.set(key, entry);
    }
    return entry;
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
      return this.challenge(
        request,
        "payment_already_used",
        "This payment was already used; sign a new one.",
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
        outcome = await request.run({ payer: payerOf(payload), network: requirements.network });
      } catch (error) {
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
      };
      // Written before settling: if this process stops in the middle, the worker finds the row and
      // reconciles it, so no settlement is ever missing from the ledger.
      const ledgerId = await this.recordLedger({ ...entry, state: "pending" });
      const resolveLedger = (
        state: LedgerState,
        transaction: string | null,
        errorReason: string | null,
        payer?: string,
      ) =>
        this.resolveLedger(ledgerId, {
          ...entry,
          state,
          transaction,
          errorReason,
          payer: payer ?? entry.payer,
        });

      let settlement: SettleResponse;
      try {
        settlement = await this.server.settlePayment(payload, requirements, request.extensions);
      } catch (error) {
        if (error instanceof SettleError) {
          settlement = {
            success: false,
            errorReason: error.errorReason,
            errorMessage: error.errorMessage,
            transaction: "",
            network: requirements.network,
          };
        } else {
          settled = true; // the outcome is unknown: keep the nonce claimed so the payment cannot be reused
          const id = await resolveLedger("unknown", null, errorText(error).slice(0, 500));
          if (id !== undefined) await this.queueReconciliation(id, 60_000);
          this.log.error(
            { sku: request.product.sku, ledgerId: id, err: errorText(error) },
            "settlement outcome unknown",
          );
          return jsonResponse(502, {
            error: "settlement_unknown",
            message:
              "The facilitator did not confirm the settlement in time. No data was delivered; the payment is being reconciled.",
            charged: "unknown",
            ...(id !== undefined ? { reference: `ledger-${id}` } : {}),
          });
        }
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
      await resolveLedger("settled", settlement.transaction, null, payer ?? undefined);
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
  private async resolveLedger(id: number | undefined, entry: LedgerEntry): Promise<number | undefined> {
    if (id === undefined) return this.recordLedger(entry);
    try {
      await this.store.ledger.resolve(id, entry.state, entry.transaction, entry.errorReason ?? null, {
        payer: entry.payer,
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

  private async queueReconciliation(ledgerId: number, delayMs: number): Promise<void> {
    await this.store.jobs
      .enqueue(
        "reconcile-settlement",
        String(ledgerId),
        { ledgerId },
        { runAt: new Date(Date.now() + delayMs), maxAttempts: 10 },
      )
      .catch((e: unknown) =>
        this.log.error({ ledgerId, err: errorText(e) }, "could not queue reconciliation"),
      );
  }

  /**
   * Queues a reconciliation for every row left pending by a process that stopped between writing the row
   * and recording the settlement's outcome (run periodically by the worker).
   */
  async sweepPending(now = new Date()): Promise<number> {
    // A settlement in progress is resolved within the facilitator timeout; older pending rows were abandoned.
    const cutoff = new Date(now.getTime() - this.config.facilitatorTimeoutMs - 10_000);
    const ids = await this.store.ledger.idsInStateBefore("pending", cutoff);
    for (const id of ids) await this.queueReconciliation(id, 0);
    return ids.length;
  }

  /**
   * Settles the outcome of a ledger row.
   * unknown (the facilitator did not answer in time): the settlement is re-submitted; "nonce already used"
   * means the first one went through.
   * pending (the process stopped around the settlement; the buyer got no answer): never re-submitted, since
   * that would charge for an answer that was not delivered. Verification tells whether the authorization
   * was spent: if so it is recorded as settled and undelivered (a refund is due), otherwise as failed.
   */
  async reconcile(ledgerId: number): Promise<"settled" | "failed" | "unknown" | "already-resolved"> {
    const row = await this.store.ledger.get(ledgerId);
    if (!row?.payment_payload || !row.requirements) return "already-resolved";
    if (row.state !== "unknown" && row.state !== "pending") return "already-resolved";
    const payload = JSON.parse(row.payment_payload) as PaymentPayload;
    const requirements = JSON.parse(row.requirements) as PaymentRequirements;
    if (row.state === "pending") return this.reconcilePending(ledgerId, payload, requirements);

    let result: SettleResponse;
    try {
      result = await this.server.settlePayment(payload, requirements);
    } catch (error) {
      if (!(error instanceof SettleError)) throw error; // still unknown: the job retries with backoff
      result = {
        success: false,
        errorReason: error.errorReason,
        transaction: "",
        network: requirements.network,
      };
    }
    if (result.success) {
      await this.store.ledger.resolve(ledgerId, "settled", result.transaction, null);
      return "settled";
    }
    const reason = result.errorReason ?? "settlement_failed";
    if (SPENT_AUTHORIZATION.test(reason)) {
      await this.store.ledger.resolve(
        ledgerId,
        "settled",
        row.transaction,
        `first settlement went through (${reason})`,
      );
      return "settled";
    }
    await this.store.ledger.resolve(ledgerId, "failed", null, reason);
    return "failed";
  }

  private async reconcilePending(
    ledgerId: number,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<"settled" | "failed" | "unknown"> {
    let reason: string;
    try {
      const verified = await this.server.verifyPayment(payload, requirements);
      reason = verified.isValid ? "" : (verified.invalidReason ?? "invalid_payment");
    } catch (error) {
      if (!(error instanceof VerifyError)) throw error; // facilitator unreachable: the job retries
      reason = error.invalidReason ?? "invalid_payment";
    }
    if (reason === "") {
      await this.store.ledger.resolve(
        ledgerId,
        "failed",
        null,
        "not settled: the node stopped before settling; nothing was charged and no answer was delivered",
      );
      return "failed";
    }
    if (SPENT_AUTHORIZATION.test(reason)) {
      await this.store.ledger.resolve(
        ledgerId,
        "settled",
        null,
        `settled but the answer was not delivered (the node stopped); refund due (${reason})`,
      );
      return "settled";
    }
    await this.store.ledger.resolve(
      ledgerId,
      "unknown",
      null,
      `the node stopped around the settlement and verification cannot tell (${reason}); check the chain`,
    );
    return "unknown";
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
