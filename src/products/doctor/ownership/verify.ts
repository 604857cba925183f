// GET /v1/doctor/verify: issues a token bound to the URL's host and to the wallet paying for this call.
// Publishing it at /.well-known/x402-doctor.txt on that host proves ownership to /v1/doctor/seller.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { errorOutcome } from "../../../errors.ts";
import { effectivePort, hostKey } from "../fetcher/address-policy.ts";
import { issueToken } from "../repository.ts";
import { type DoctorRuntime, liveNotice, UrlParam, urlRefusal } from "../runtime.ts";

const TOKEN_TTL_MS = 30 * 24 * 3600_000;
const WELL_KNOWN_PATH = "/.well-known/x402-doctor.txt";

/**
 * Where the token must be published: https on the URL's host. Hosts on the operator's allow-list (tests,
 * private deployments) keep the URL's own scheme and port.
 */
export function wellKnownUrl(url: URL, runtime: DoctorRuntime): string {
  const allowListed = runtime.policy.allowHosts.has(hostKey(url.hostname, effectivePort(url)));
  return allowListed ? `${url.origin}${WELL_KNOWN_PATH}` : `https://${url.hostname}${WELL_KNOWN_PATH}`;
}

const VerifyAnswer = z.object({
  product: z.literal("doctor.verify"),
  host: z.string().describe("The host the token is bound to"),
  wallet: z.string().describe("The wallet the token is bound to: the one that paid for this call"),
  token: z.string().describe("Publish this line in the well-known file"),
  wellKnownUrl: z.string().describe("Where to publish it"),
  instructions: z.string(),
  issuedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  notice: z.string().optional(),
});

export function verifyProduct(runtime: DoctorRuntime) {
  return product({
    sku: "doctor.verify",
    method: "GET",
    path: "/v1/doctor/verify",
    summary: "Get a token that proves you own an x402 seller's host",
    description:
      "Issues a token bound to the URL's host and to the wallet paying for this call. Publish it as a line of " +
      "/.well-known/x402-doctor.txt on that host, then call /v1/doctor/seller from the same wallet: the seller " +
      "check then adds a leak check. Tokens last 30 days.",
    status: "live",
    tags: ["doctor", "x402"],
    price: "0.001",
    query: z.object({ url: UrlParam.describe("A URL on the host you own (your x402 endpoint)") }),
    answer: VerifyAnswer,
    example: { url: "https://api.example.com/v1/data" },
    async check({ query }) {
      return urlRefusal(query.url, runtime);
    },
    async handle({ query, payment }, ctx) {
      const wallet = payment?.payer;
      if (!wallet) {
        return errorOutcome(
          "payer_unknown",
          "The payment names no payer address to bind the token to; pay from an EVM wallet. Nothing was charged.",
        );
      }
      const url = new URL(query.url);
      const row = await issueToken(ctx.store, { host: url.host, wallet, ttlMs: TOKEN_TTL_MS });
      const where = wellKnownUrl(url, runtime);
      return ok({
        product: "doctor.verify" as const,
        host: row.host,
        wallet: row.wallet,
        token: row.token,
        wellKnownUrl: where,
        instructions: `Serve ${where} as text/plain containing the line ${row.token} (other lines may stay), then call /v1/doctor/seller?url=... paying from ${wallet}.`,
        issuedAt: row.created_at,
        expiresAt: row.expires_at,
        ...liveNotice(ctx),
      });
    },
  });
}
