// GET /v1/doctor/seller: the checkup of the caller's own endpoint, plus — once the caller proves it owns the
// host with a token from /v1/doctor/verify — a leak check: does the endpoint serve data without payment?
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { isObject } from "../../../json.ts";
import { CheckAnswerSchema, ProblemSchema } from "../checkup/answer.ts";
import type { Challenge } from "../checkup/challenge.ts";
import { type CheckResult, runCheckup } from "../checkup/probe.ts";
import { type Problem, problem } from "../checkup/problems.ts";
import { FetchRefusedError } from "../fetcher/address-policy.ts";
import { FetchFailedError } from "../fetcher/safe-fetcher.ts";
import { tokensForHost } from "../repository.ts";
import {
  checkDeps,
  type DoctorRuntime,
  liveNotice,
  refusedOutcome,
  UrlParam,
  urlRefusal,
} from "../runtime.ts";
import { wellKnownUrl } from "./verify.ts";

const TOKEN_LINE = /^x402-doctor-verify=[0-9a-f]{32}$/;
/** Keys a 402 body may carry besides the challenge itself. */
const CHALLENGE_KEYS = new Set([
  "x402Version",
  "error",
  "message",
  "accepts",
  "resource",
  "extensions",
  "freeSample",
  "description",
  "mimeType",
  "charged",
  "hint",
  "docs",
  "documentation",
]);

/** Findings that mean data leaves without payment (a 5xx on a bad header is a bug, not a leak). */
const LEAK_CODES = new Set(["paid_route_free", "data_in_402_body", "payment_not_verified"]);

type OwnershipState = "proved" | "not_proved" | "token_for_other_wallet";

interface Ownership {
  state: OwnershipState;
  wellKnownUrl: string;
  httpStatus: number | null;
  reason: string;
}

async function proveOwnership(
  url: URL,
  payer: string | null,
  runtime: DoctorRuntime,
  ctx: HandlerContext,
): Promise<Ownership> {
  const where = wellKnownUrl(url, runtime);
  let status: number | null = null;
  let lines: string[] = [];
  try {
    const response = await runtime.fetcher.fetch({ url: where, headers: { accept: "text/plain" } });
    status = response.status;
    if (status >= 200 && status < 300) {
      lines = response.body
        .toString("utf8")
        .split(/\r?\n/)
        .map((line) => line.trim());
    }
  } catch (error) {
    if (!(error instanceof FetchFailedError || error instanceof FetchRefusedError)) throw error;
    return {
      state: "not_proved",
      wellKnownUrl: where,
      httpStatus: null,
      reason: `the file could not be fetched: ${error.message}`,
    };
  }
  const published = new Set(lines.filter((line) => TOKEN_LINE.test(line)));
  if (published.size === 0) {
    return {
      state: "not_proved",
      wellKnownUrl: where,
      httpStatus: status,
      reason:
        status !== null && status >= 200 && status < 300
          ? "the file holds no doctor token"
          : `the file answered ${status}`,
    };
  }
  const live = (await tokensForHost(ctx.store, url.host)).filter((t) => published.has(t.token));
  if (live.length === 0) {
    return {
      state: "not_proved",
      wellKnownUrl: where,
      httpStatus: status,
      reason: "no published token was issued for this host, or it expired",
    };
  }
  if (payer && live.some((t) => t.wallet === payer.toLowerCase())) {
    return {
      state: "proved",
      wellKnownUrl: where,
      httpStatus: status,
      reason: "a live token for this host and your wallet is published",
    };
  }
  return {
    state: "token_for_other_wallet",
    wellKnownUrl: where,
    httpStatus: status,
    reason: "the published token was issued to another wallet; pay from that wallet or get a new token",
  };
}

interface Probe {
  name: string;
  httpStatus: number | null;
  note: string;
}

/** A payment that parses but was signed by nobody: an endpoint that serves data for it verifies nothing. */
function forgedPayment(challenge: Challenge | undefined): string | undefined {
  if (!challenge || !("paymentRequired" in challenge)) return undefined;
  const accepted = (challenge.paymentRequired.accepts as unknown[] | undefined)?.find(isObject);
  if (!accepted) return undefined;
  const payload = {
    x402Version: 2,
    resource: challenge.paymentRequired.resource,
    accepted,
    payload: {
      signature: `0x${"00".repeat(65)}`,
      authorization: {
        from: `0x${"00".repeat(19)}01`,
        to: accepted.payTo,
        value: accepted.amount,
        validAfter: "0",
        validBefore: String(Math.floor(Date.now() / 1000) + 300),
        nonce: `0x${randomBytes(32).toString("hex")}`,
      },
    },
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

async function leakCheck(
  url: string,
  check: CheckResult,
  runtime: DoctorRuntime,
): Promise<{ leaks: Problem[]; probes: Probe[] }> {
  const leaks: Problem[] = [];
  const probes: Probe[] = [];
  const status = check.answer.evidence.httpStatus;
  probes.push({ name: "unpaid request", httpStatus: status, note: "as in the checkup" });
  if (status !== null && status >= 200 && status < 300) {
    leaks.push(
      problem(
        "paid_route_free",
        "error",
        `the endpoint answered ${status} with ${check.answer.evidence.bodyBytes} bytes and no payment`,
      ),
    );
  }
  if (status === 402 && check.response) {
    let body: unknown;
    try {
      body = JSON.parse(check.response.body.toString("utf8"));
    } catch {
      body = undefined;
    }
    const extra = isObject(body) ? Object.keys(body).filter((k) => !CHALLENGE_KEYS.has(k)) : [];
    if (extra.length > 0) {
      leaks.push(
        problem(
          "data_in_402_body",
          "warning",
          `the 402 body carries fields beyond the challenge: ${extra.slice(0, 10).join(", ")}`,
        ),
      );
    }
  }
  const attempts: Array<[string, Record<string, string>]> = [
    ["malformed PAYMENT-SIGNATURE", { "payment-signature": "e30=" }],
    ["malformed X-PAYMENT (v1 header)", { "x-payment": "e30=" }],
  ];
  const forged = forgedPayment(check.challenge);
  if (forged) attempts.push(["payment signed by nobody", { "payment-signature": forged }]);
  for (const [name, headers] of attempts) {
    try {
      const response = await runtime.fetcher.fetch({ url, headers });
      probes.push({
        name,
        httpStatus: response.status,
        note: response.status === 402 ? "refused, as it should" : `answered ${response.status}`,
      });
      if (response.status >= 200 && response.status < 300) {
        leaks.push(
          problem(
            "payment_not_verified",
            "error",
            `with a ${name} the endpoint answered ${response.status}: it serves data without a valid payment`,
          ),
        );
      } else if (response.status >= 500) {
        leaks.push(
          problem(
            "malformed_payment_header_500",
            "warning",
            `with a ${name} the endpoint answered ${response.status} instead of 402`,
          ),
        );
      }
    } catch (error) {
      if (!(error instanceof FetchFailedError)) throw error;
      probes.push({ name, httpStatus: null, note: `no answer: ${error.message}` });
    }
  }
  return { leaks, probes };
}

const SellerAnswer = z.object({
  product: z.literal("doctor.seller"),
  url: z.string(),
  host: z.string(),
  ownership: z.enum(["proved", "not_proved", "token_for_other_wallet"]),
  ownershipDetail: z.object({
    wellKnownUrl: z.string(),
    httpStatus: z.number().int().nullable(),
    reason: z.string(),
  }),
  checkup: CheckAnswerSchema,
  leakCheck: z.object({
    performed: z.boolean().describe("Only once ownership is proved"),
    verdict: z.enum(["no_leak", "leaks", "not_checked"]),
    leaks: z.array(ProblemSchema),
    probes: z.array(
      z.object({ name: z.string(), httpStatus: z.number().int().nullable(), note: z.string() }),
    ),
  }),
  checkedAt: z.iso.datetime(),
  notice: z.string().optional(),
});

export function sellerProduct(runtime: DoctorRuntime) {
  return product({
    sku: "doctor.seller",
    method: "GET",
    path: "/v1/doctor/seller",
    summary: "Check your own x402 endpoint, with a leak check once you prove you own it",
    description:
      "The checkup of your endpoint plus an ownership check: publish the token from /v1/doctor/verify at " +
      "/.well-known/x402-doctor.txt on the host and pay from the same wallet. Once ownership is proved, the doctor " +
      "also checks whether the endpoint serves data without a valid payment (a 2xx unpaid, with a malformed or " +
      "unsigned payment header, or data inside the 402 body).",
    status: "live",
    tags: ["doctor", "x402"],
    price: "0.02",
    query: z.object({ url: UrlParam.describe("Your own x402 endpoint") }),
    answer: SellerAnswer,
    example: { url: "https://api.example.com/v1/data" },
    async check({ query }) {
      return urlRefusal(query.url, runtime);
    },
    async handle({ query, payment }, ctx) {
      try {
        const url = new URL(query.url);
        const check = await runCheckup(query.url, checkDeps(runtime, ctx));
        const ownership = await proveOwnership(url, payment?.payer ?? null, runtime, ctx);
        const leak =
          ownership.state === "proved" ? await leakCheck(check.answer.finalUrl, check, runtime) : undefined;
        return ok({
          product: "doctor.seller" as const,
          url: query.url,
          host: url.host,
          ownership: ownership.state,
          ownershipDetail: {
            wellKnownUrl: ownership.wellKnownUrl,
            httpStatus: ownership.httpStatus,
            reason: ownership.reason,
          },
          checkup: check.answer,
          leakCheck: leak
            ? {
                performed: true,
                verdict: leak.leaks.some((l) => LEAK_CODES.has(l.code))
                  ? ("leaks" as const)
                  : ("no_leak" as const),
                leaks: leak.leaks,
                probes: leak.probes,
              }
            : { performed: false, verdict: "not_checked" as const, leaks: [], probes: [] },
          checkedAt: check.answer.checkedAt,
          ...liveNotice(ctx),
        });
      } catch (error) {
        if (error instanceof FetchRefusedError) return refusedOutcome(error);
        throw error;
      }
    },
  });
}
