// Safe retries (@x402/extensions/payment-identifier; coinbase/x402 specs/extensions/payment_identifier.md): a
// buyer who paid but lost the answer retries with the same payment id and gets the same answer (the same body
// bytes and the same PAYMENT-RESPONSE), and is not charged again. Answers are kept encrypted at rest
// (AES-256-GCM, key derived from the receipt signing key, additional data binding the sealed text to its
// payment id, payer and request) for PAID_ANSWER_RETENTION_HOURS, keyed by (payment id, payer).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { PaymentPayload } from "@x402/core/types";
import {
  declarePaymentIdentifierExtension,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
} from "@x402/extensions/payment-identifier";
import { JSON_HEADERS } from "../../../responses.ts";
import type { PaidAnswerRow } from "../../../store/paid-answers.ts";
import type { Store } from "../../../store/store.ts";

/** The 402's declaration: a payment identifier is optional. */
export const PAYMENT_IDENTIFIER_DECLARATION = {
  [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
};

/**
 * The same in the PAYMENT-REQUIRED header, without its `schema`, which only describes `info` (the SDK validates
 * a schema when one is there and needs none; the 402's body has it): a 4 KB response head has no room to spare.
 */
export const PAYMENT_IDENTIFIER_IN_HEADER = {
  [PAYMENT_IDENTIFIER]: { info: PAYMENT_IDENTIFIER_DECLARATION[PAYMENT_IDENTIFIER].info },
};

/** Where a buyer's payment id lives in the payment payload, as a 400 names it. */
export const PAYMENT_ID_PARAMETER = `PAYMENT-SIGNATURE extensions.${PAYMENT_IDENTIFIER}.info.id`;

/** How soon a retry may find the first request with its payment identifier finished. */
export const IN_PROGRESS_RETRY_AFTER_SEC = 5;

/** A paid answer as delivered: body bytes and the PAYMENT-RESPONSE header (with its receipt). */
export interface PaidAnswer {
  body: string;
  paymentResponse: string;
}

export interface AnswerKey {
  paymentId: string;
  payer: string;
}

/** The 200 of a paid answer, first delivery or retry alike. */
export function paidAnswerResponse(answer: PaidAnswer): Response {
  return new Response(answer.body, {
    status: 200,
    headers: {
      ...JSON_HEADERS,
      "payment-response": answer.paymentResponse,
      "cache-control": "private, no-store",
    },
  });
}

/** The payment id a payload carries; `invalid` when it carries one that breaks the extension's rules. */
/**
 * The payment id a buyer sent, checked against the extension's own rules (an object `info` with a boolean
 * `required` and, if present, an id of 16–128 characters [A-Za-z0-9_-]). Not the SDK's
 * `extractAndValidatePaymentIdentifier`: that compiles the `schema` the buyer echoes back with a new Ajv on
 * every call (about 4 ms of CPU, and code generated from a schema the buyer controls).
 */
export function paymentIdOf(payload: PaymentPayload): { id?: string; invalid?: string } {
  const extension = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined) return {};
  const info = (extension as { info?: unknown } | null)?.info as
    | { required?: unknown; id?: unknown }
    | undefined;
  if (!info || typeof info !== "object") return { invalid: "the extension must have an info object" };
  if (typeof info.required !== "boolean") return { invalid: "info.required must be a boolean" };
  if (info.id === undefined) return {};
  if (typeof info.id !== "string" || !isValidPaymentId(info.id)) {
    return {
      invalid: "info.id must be 16–128 characters of letters, digits, hyphens and underscores",
    };
  }
  return { id: info.id };
}

export class PaidAnswers {
  private readonly store: Store;
  private readonly key: Buffer;
  readonly retentionMs: number;

  constructor(store: Store, key: Buffer, retentionMs: number) {
    this.store = store;
    this.key = key;
    this.retentionMs = retentionMs;
  }

  private static context(row: Pick<PaidAnswerRow, "payment_id" | "payer" | "request_hash">): Buffer {
    return Buffer.from(`${row.payment_id}\n${row.payer.toLowerCase()}\n${row.request_hash}`, "utf8");
  }

  seal(row: Pick<PaidAnswerRow, "payment_id" | "payer" | "request_hash">, answer: PaidAnswer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(PaidAnswers.context(row));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64");
  }

  /** The answer of a stored row; throws when it cannot be opened (another key, altered text). */
  open(row: PaidAnswerRow): PaidAnswer {
    if (row.sealed_answer === null) throw new Error("the row holds no answer yet");
    const bytes = Buffer.from(row.sealed_answer, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, 12));
    decipher.setAAD(PaidAnswers.context(row));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
    return JSON.parse(text) as PaidAnswer;
  }

  find(key: AnswerKey): Promise<PaidAnswerRow | undefined> {
    return this.store.paidAnswers.find(key.paymentId, key.payer);
  }

  findByPayment(paymentId: string, nonceKey: string): Promise<PaidAnswerRow | undefined> {
    return this.store.paidAnswers.findByPayment(paymentId, nonceKey);
  }

  reserve(key: AnswerKey, requestHash: string, nonceKey: string): Promise<boolean> {
    return this.store.paidAnswers.reserve({ ...key, requestHash, nonceKey }, this.retentionMs);
  }

  keep(row: Pick<PaidAnswerRow, "payment_id" | "payer" | "request_hash">, answer: PaidAnswer): Promise<void> {
    return this.store.paidAnswers.keep(
      { paymentId: row.payment_id, payer: row.payer },
      this.seal(row, answer),
      this.retentionMs,
    );
  }

  release(key: AnswerKey): Promise<void> {
    return this.store.paidAnswers.release(key);
  }
}
