// GET /v1/doctor/status (free): whether test-buys are available, the fetcher's limits, the catalogue size,
// stored reports and the nightly review of unknown failure reasons.
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { BUY_NETWORK } from "./buy/buyer.ts";
import { buyerAccount } from "./buy/wallet.ts";
import { CAUSES } from "./diagnosis/causes.ts";
import { REVIEW_WARMER, unknownReasonReview } from "./diagnosis/review.ts";
import { DEFAULT_PORTS } from "./fetcher/address-policy.ts";
import { MAX_REDIRECTS } from "./fetcher/safe-fetcher.ts";
import { doctorCounts } from "./repository.ts";
import type { DoctorRuntime } from "./runtime.ts";

const Timestamp = z.iso.datetime().nullable();

const DoctorStatusAnswer = z.object({
  ok: z.literal(true),
  testBuy: z.object({
    available: z.boolean().describe("A buyer wallet is configured, so /v1/doctor/buy can buy"),
    wallet: z.string().nullable().describe("The address the service buys from"),
    network: z.string(),
  }),
  fetcher: z.object({
    timeoutMs: z.number().int(),
    maxBodyBytes: z.number().int(),
    maxRedirects: z.number().int(),
    ports: z.array(z.number().int()),
    allowListedHosts: z.number().int().describe("Operator allow-list entries (tests, private deployments)"),
  }),
  catalogue: z.object({ causes: z.number().int() }),
  reports: z.number().int(),
  liveVerifyTokens: z.number().int(),
  unknownReasons: z.object({
    open: z.number().int().describe("Reasons no catalogue entry explains yet"),
    pendingReview: z.number().int(),
    lastReviewAt: Timestamp,
    lastReviewOk: z.boolean().nullable(),
    everyMs: z.number().int(),
  }),
  generatedAt: z.iso.datetime(),
});

export function doctorStatusProduct(runtime: DoctorRuntime) {
  const wallet = buyerAccount(runtime.settings)?.address ?? null;
  return product({
    sku: "doctor.status",
    method: "GET",
    path: "/v1/doctor/status",
    summary: "Status of the x402 doctor (free)",
    description:
      "Free. Whether test-buys are available and from which wallet, the SSRF-safe fetcher's limits, the size of " +
      "the failure-cause catalogue, stored reports, and the nightly review of unknown failure reasons.",
    status: "live",
    tags: ["doctor", "status"],
    price: "0",
    answer: DoctorStatusAnswer,
    async handle(_input, ctx) {
      const [counts, review] = await Promise.all([
        doctorCounts(ctx.store),
        ctx.store.warmerRuns.status(REVIEW_WARMER),
      ]);
      return ok({
        ok: true as const,
        testBuy: { available: wallet !== null, wallet, network: BUY_NETWORK.caip2 },
        fetcher: {
          timeoutMs: runtime.settings.fetchTimeoutMs,
          maxBodyBytes: runtime.settings.maxBodyBytes,
          maxRedirects: MAX_REDIRECTS,
          ports: [...DEFAULT_PORTS],
          allowListedHosts: runtime.settings.allowHosts.size,
        },
        catalogue: { causes: CAUSES.length },
        reports: counts.reports,
        liveVerifyTokens: counts.liveTokens,
        unknownReasons: {
          open: counts.unknownReasons,
          pendingReview: counts.unknownPendingReview,
          lastReviewAt: review.lastFinishedAt,
          lastReviewOk: review.lastOk,
          everyMs: unknownReasonReview.everyMs,
        },
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
