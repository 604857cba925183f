// GET /v1/receipts/verify (free): checks a receipt this server signed (offer-receipt extension, JWS EdDSA)
// and returns what it says. The key's DID document is at /.well-known/did.json (src/x402/seller/receipts/).
import { z } from "zod";
import { badRequest, type Family, ok, product } from "../../catalog/product.ts";
import { keyIdOf } from "../../x402/seller/receipts/issuer.ts";
import { receiptKey } from "../../x402/seller/receipts/signing-key.ts";
import { checkReceipt } from "../../x402/seller/receipts/verify.ts";

const ReceiptVerifyAnswer = z.object({
  product: z.literal("receipts.verify"),
  valid: z.boolean().describe("True when this server signed the receipt, unaltered"),
  reason: z.string().optional().describe("Why the receipt does not verify (valid false only)"),
  kid: z.string().nullable().describe("The key id the receipt names (its JWS header)"),
  serverKid: z.string().describe("The key id this server signs with; its DID document names the public key"),
  receipt: z
    .object({
      version: z.number().int(),
      network: z.string().describe("CAIP-2 network of the payment"),
      resourceUrl: z.string().describe("The paid endpoint (route URL, without the request's query)"),
      payer: z.string().describe("The wallet that paid"),
      issuedAt: z.iso.datetime().describe("When the receipt was signed"),
      transaction: z.string().nullable().describe("The settlement transaction"),
      responseSha256: z
        .string()
        .nullable()
        .describe("SHA-256 (hex) of the answer's body bytes, exactly as delivered"),
      amount: z
        .string()
        .optional()
        .describe("Atomic USDC units settled, on calls billed by use (the upto scheme's amount)"),
      usage: z
        .record(z.string(), z.number())
        .optional()
        .describe(
          "What the call used, as priced: the chat's promptTokens, completionTokens, reasoningTokens",
        ),
    })
    .optional()
    .describe("The signed fields (valid true only)"),
  responseMatches: z
    .boolean()
    .optional()
    .describe("Whether sha256 (when given) equals the receipt's responseSha256"),
  checkedAt: z.iso.datetime(),
});

const Sha256Param = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, { error: "must be a SHA-256 digest: 64 hex characters" })
  .transform((s) => s.toLowerCase());

const receiptVerifyProduct = product({
  sku: "receipts.verify",
  method: "GET",
  path: "/v1/receipts/verify",
  summary: "Check a receipt this server signed (free)",
  description:
    "Free. Every paid answer's PAYMENT-RESPONSE carries a signed receipt (x402 offer-receipt extension, JWS " +
    "EdDSA): extensions['offer-receipt'].info.receipt.signature. Give that JWS (or the receipt object as JSON, " +
    "or the whole PAYMENT-RESPONSE header, encoded or decoded) as receipt: the answer says whether this server " +
    "signed it, unaltered, and what it states — network, paid endpoint, payer, transaction, the SHA-256 of the " +
    "answer's body, and for a call billed by use the amount settled and the token counts. Give " +
    "sha256 (the digest of the body you hold) to have it compared.",
  status: "live",
  tags: ["receipts", "x402"],
  price: "0",
  query: z.object({
    receipt: z
      .string({ error: "is required: the receipt's JWS (header.payload.signature)" })
      .trim()
      .min(1, { error: "is required: the receipt's JWS (header.payload.signature)" })
      .describe("The receipt: its compact JWS, the receipt object as JSON, or the PAYMENT-RESPONSE header"),
    sha256: Sha256Param.optional().describe("SHA-256 (hex) of the answer body you received, to compare"),
  }),
  answer: ReceiptVerifyAnswer,
  example: {
    receipt:
      "eyJhbGciOiJFZERTQSIsImtpZCI6ImRpZDp3ZWI6ZXhhbXBsZS5jb20jcmVjZWlwdHMifQ.eyJ2ZXJzaW9uIjoxfQ.c2lnbmF0dXJl",
  },
  async handle({ query }, ctx) {
    const key = receiptKey(ctx.config);
    const check = await checkReceipt(query.receipt, key);
    if (!check) {
      return badRequest(
        "receipt",
        "receipt: not a receipt; give the compact JWS (three base64url parts joined by dots), the receipt object as JSON, or the PAYMENT-RESPONSE header",
      );
    }
    const common = {
      product: "receipts.verify" as const,
      kid: check.kid,
      serverKid: keyIdOf(ctx.config.publicUrl, key),
      checkedAt: new Date().toISOString(),
    };
    if (!check.valid) return ok({ ...common, valid: false, reason: check.reason });
    const p = check.payload;
    const responseSha256 = typeof p.responseSha256 === "string" ? p.responseSha256 : null;
    return ok({
      ...common,
      valid: true,
      receipt: {
        version: p.version,
        network: p.network,
        resourceUrl: p.resourceUrl,
        payer: p.payer,
        issuedAt: new Date(p.issuedAt * 1000).toISOString(),
        transaction: p.transaction || null,
        responseSha256,
        ...(typeof p.amount === "string" ? { amount: p.amount } : {}),
        ...(p.usage && typeof p.usage === "object" ? { usage: p.usage } : {}),
      },
      ...(query.sha256 !== undefined ? { responseMatches: query.sha256 === responseSha256 } : {}),
    });
  },
});

export function receiptsFamily(): Family {
  return { name: "receipts", products: [receiptVerifyProduct] };
}
