// GET /v1/doctor/report: a stored report, exactly as first delivered, to the wallet that paid for it only.
import { z } from "zod";
import { notFound, ok, product } from "../../../catalog/product.ts";
import { findReport, REPORT_ID } from "../repository.ts";
import { storedNotice } from "../runtime.ts";

const ReportAnswer = z.object({
  product: z.literal("doctor.report"),
  id: z.string(),
  sku: z.string().describe("The doctor product that produced the report"),
  createdAt: z.iso.datetime(),
  receipt: z
    .object({
      payer: z.string(),
      network: z.string(),
      transaction: z.string().nullable(),
      amount: z.string().describe("Atomic USDC paid for the original call"),
      signed: z
        .string()
        .nullable()
        .describe("The original call's signed receipt (JWS); check it at /v1/receipts/verify"),
    })
    .describe("The settlement of the call that produced the report"),
  bodySha256: z
    .string()
    .describe("SHA-256 (hex) of the body as first delivered; JSON.stringify(body) hashes to it"),
  body: z.record(z.string(), z.unknown()).describe("The original answer, unchanged"),
  retrievedAt: z.iso.datetime(),
  notice: z.string().optional(),
});

export const reportProduct = product({
  sku: "doctor.report",
  method: "GET",
  path: "/v1/doctor/report",
  summary: "A stored doctor report, for the wallet that paid for it",
  description:
    "Reports are kept permanently. Only the wallet that paid for the original call gets one: pay for this call " +
    "from that wallet. Anyone else gets 404 and is not charged. The body is exactly the answer first delivered.",
  status: "live",
  tags: ["doctor", "x402"],
  price: "0.01",
  query: z.object({
    id: z
      .string({ error: "is required: a report id such as dr_0123…" })
      .trim()
      .regex(REPORT_ID, { error: "must be a report id: dr_ followed by 32 hex characters" })
      .describe("Report id (dr_ + 32 hex characters) from a test-buy answer"),
  }),
  answer: ReportAnswer,
  example: { id: "dr_0123456789abcdef0123456789abcdef" },
  async handle({ query, payment }, ctx) {
    const row = await findReport(ctx.store, query.id);
    const payer = payment?.payer?.toLowerCase();
    // The same answer for "no such report" and "not yours": a report's existence is not disclosed either.
    if (!row || !payer || row.payer !== payer) {
      return notFound(
        `No report ${query.id} belongs to the wallet paying for this call; nothing was charged.`,
      );
    }
    return ok({
      product: "doctor.report" as const,
      id: row.id,
      sku: row.sku,
      createdAt: row.created_at,
      receipt: {
        payer: row.payer,
        network: row.network,
        transaction: row.transaction,
        amount: row.amount,
        signed: row.receipt,
      },
      bodySha256: row.body_sha256,
      body: JSON.parse(row.body) as Record<string, unknown>,
      retrievedAt: new Date().toISOString(),
      ...storedNotice(ctx),
    });
  },
});
