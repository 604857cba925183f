// Signed offers and receipts (@x402/extensions/offer-receipt; coinbase/x402
// specs/extensions/extension-offer-and-receipt.md), in JWS format with EdDSA (Ed25519), under a did:web key id.
//
// Offers are signed once per product, price and key (the 402 template), so they bind the product's route
// URL (publicUrl + path, no query): the paid resource, the same for every request of the product. Receipts
// name the same route URL (so a buyer's SDK matches them to the offer), the payer, the network and the
// transaction, and add `responseSha256`, the SHA-256 of the answer's body bytes: the spec's receipt payload
// has no body digest, and a JWS payload (unlike the fixed EIP-712 type) can carry more claims under the same
// signature. A call billed by use adds `amount` (atomic units settled) and `usage` (the counts it was priced on,
// the chat's tokens) beside it.
import { sign } from "node:crypto";
import type { PaymentRequirements } from "@x402/core/types";
import {
  createJWS,
  createOfferJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  type JWSSigner,
  OFFER_RECEIPT,
  type ReceiptPayload,
} from "@x402/extensions/offer-receipt";
import type { ReceiptKey } from "./signing-key.ts";

/** The extension's schema version (the extension's `info.version`, on offers and receipts alike). */
const OFFER_RECEIPT_VERSION = 1;
/** How long a signed offer stays valid; the 402 templates are re-signed at half of it. */
export const OFFER_VALIDITY_SECONDS = 3600;
export const JWS_ALGORITHM = "EdDSA";

/** The receipt payload paycall signs: the spec's fields and the digest of the body delivered. */
export interface PaycallReceiptPayload extends ReceiptPayload {
  /** Hex SHA-256 of the response body's bytes, exactly as delivered. */
  responseSha256: string;
  /** Atomic units settled (calls billed by use). */
  amount?: string;
  /** What the call used, as priced (the chat: promptTokens, completionTokens, reasoningTokens). */
  usage?: Record<string, number>;
}

/** did:web of the public URL: host (port as %3A) and path segments joined by ":" (W3C did:web method). */
export function didWebOf(publicUrl: string): string {
  const url = new URL(publicUrl);
  const segments = url.pathname.split("/").filter(Boolean).map(encodeURIComponent);
  return ["did:web", encodeURIComponent(url.host), ...segments].join(":");
}

export function keyIdOf(publicUrl: string, key: ReceiptKey): string {
  return `${didWebOf(publicUrl)}#receipts-${key.fingerprint}`;
}

/** The route URL an offer and a receipt name: the product's endpoint, without the request's query. */
export function routeUrlOf(publicUrl: string, path: string): string {
  return `${publicUrl}${path}`;
}

/** The JSON Schema of a JWS receipt's extension entry. */
const RECEIPT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    version: { type: "integer" },
    receipt: {
      type: "object",
      properties: {
        format: { type: "string", const: "jws" },
        signature: {
          type: "string",
          description: "JWS compact serialization containing the receipt payload",
        },
      },
      required: ["format", "signature"],
    },
  },
  required: ["version", "receipt"],
};

/** The JSON Schema of JWS offers' extension entry. */
const OFFER_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    version: { type: "integer" },
    offers: {
      type: "array",
      items: {
        type: "object",
        properties: {
          format: { type: "string", const: "jws" },
          acceptIndex: { type: "integer" },
          signature: {
            type: "string",
            description: "JWS compact serialization containing the offer payload",
          },
        },
        required: ["format", "signature"],
      },
    },
  },
  required: ["version", "offers"],
};

/** The offer-and-receipt extension of a 402: one signed offer per accept (each names its acceptIndex). */
interface OfferExtension {
  info: { version: number; offers: JWSSignedOffer[] };
  schema: unknown;
}

export class ReceiptIssuer {
  readonly kid: string;
  private readonly signer: JWSSigner;

  constructor(key: ReceiptKey, publicUrl: string) {
    this.kid = keyIdOf(publicUrl, key);
    this.signer = {
      kid: this.kid,
      format: "jws",
      algorithm: JWS_ALGORITHM,
      sign: async (input) => sign(null, input, key.privateKey).toString("base64url"),
    };
  }

  /** `extensions["offer-receipt"]` of a 402: one signed offer per accepts entry, in the same order. */
  async offerExtension(accepts: PaymentRequirements[], routeUrl: string): Promise<OfferExtension> {
    const offers: JWSSignedOffer[] = [];
    for (const [acceptIndex, requirement] of accepts.entries()) {
      offers.push(
        await createOfferJWS(
          routeUrl,
          {
            acceptIndex,
            scheme: requirement.scheme,
            network: requirement.network,
            asset: requirement.asset,
            payTo: requirement.payTo,
            amount: requirement.amount,
            offerValiditySeconds: OFFER_VALIDITY_SECONDS,
          },
          this.signer,
        ),
      );
    }
    return { info: { version: OFFER_RECEIPT_VERSION, offers }, schema: OFFER_SCHEMA };
  }

  async receipt(fields: {
    routeUrl: string;
    payer: string;
    network: string;
    transaction: string;
    responseSha256: string;
    amount?: string;
    usage?: Record<string, number>;
  }): Promise<JWSSignedReceipt> {
    const payload: PaycallReceiptPayload = {
      version: OFFER_RECEIPT_VERSION,
      network: fields.network,
      resourceUrl: fields.routeUrl,
      payer: fields.payer,
      issuedAt: Math.floor(Date.now() / 1000),
      transaction: fields.transaction,
      responseSha256: fields.responseSha256,
      ...(fields.amount !== undefined ? { amount: fields.amount } : {}),
      ...(fields.usage ? { usage: fields.usage } : {}),
    };
    return { format: "jws", signature: await createJWS(payload, this.signer) };
  }
}

/** The settlement response's `extensions` entry carrying a receipt. */
export function receiptExtension(receipt: JWSSignedReceipt): Record<string, unknown> {
  return { [OFFER_RECEIPT]: { info: { version: OFFER_RECEIPT_VERSION, receipt }, schema: RECEIPT_SCHEMA } };
}
