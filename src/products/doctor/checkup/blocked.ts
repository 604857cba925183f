// GET /v1/doctor/blocked: the caller says what status it got; the doctor requests the seller itself and says
// whether the block is on the caller's path (IP, region, bot wall) or on the seller's side. It never pays.
import { z } from "zod";
import { ok, product } from "../../../catalog/product.ts";
import { FetchRefusedError } from "../fetcher/address-policy.ts";
import {
  checkDeps,
  type DoctorRuntime,
  liveNotice,
  refusedOutcome,
  UrlParam,
  urlRefusal,
} from "../runtime.ts";
import { type CheckAnswer, CheckAnswerSchema } from "./answer.ts";
import { runCheckup } from "./probe.ts";

const BLOCKED_ON = ["your_path", "seller_side", "our_path", "your_request", "none", "unknown"] as const;
type BlockedOn = (typeof BLOCKED_ON)[number];

interface BlockExplanation {
  blockedOn: BlockedOn;
  explanation: string;
}

function describeYours(status: number): string {
  if (status === 451) return "451 (a region or legal block)";
  if (status === 403) return "403 (a firewall, bot wall or IP block)";
  if (status === 429) return "429 (a rate limit)";
  if (status === 401) return "401 (asked to authenticate)";
  if (status >= 500) return `${status} (a server or edge error)`;
  return String(status);
}

/** Compares what the caller saw with what the doctor saw from its own vantage point. */
export function explainBlock(youSaw: number | null, weSaw: CheckAnswer): BlockExplanation {
  const ours = weSaw.evidence.httpStatus;
  const oursText = ours === null ? `no answer (${weSaw.evidence.failure ?? "unreachable"})` : String(ours);
  if (weSaw.verdict === "seller_down") {
    return {
      blockedOn: "seller_side",
      explanation: `The seller is down for everyone: we got ${oursText}. This is not a block on your path; retry later or tell the seller.`,
    };
  }
  if (weSaw.verdict === "client_problem") {
    return {
      blockedOn: "your_request",
      explanation: `We get ${oursText} for this URL too: the URL or request itself is wrong (path, method or parameters), not blocked.`,
    };
  }
  if (weSaw.verdict === "blocked") {
    if (youSaw !== null && (youSaw === 402 || (youSaw >= 200 && youSaw < 300))) {
      return {
        blockedOn: "our_path",
        explanation: `You got ${youSaw} but the seller answers us ${oursText}: the block is on our side (our network or region), not yours. Pay the challenge you received.`,
      };
    }
    return {
      blockedOn: "seller_side",
      explanation: `The seller blocks us as well (${oursText}): its edge refuses automated clients, this region or data-centre addresses for everyone, not just you. Only the seller can lift it; the doctor never pays around a block.`,
    };
  }
  // We reached the paywall (or data) without a block.
  if (youSaw === null) {
    return {
      blockedOn: "none",
      explanation: `From our vantage point the seller answers ${oursText}; no block. Pass the status you got (status=403, 451, 429…) to compare.`,
    };
  }
  if (youSaw === 402 || (youSaw >= 200 && youSaw < 300)) {
    return {
      blockedOn: "none",
      explanation: `You got ${youSaw} and so do we (${oursText}): this is not a block. A 402 is the payment challenge: pay it with an x402 client.`,
    };
  }
  if (youSaw === 403 || youSaw === 451 || youSaw === 429 || youSaw === 401 || youSaw >= 500) {
    return {
      blockedOn: "your_path",
      explanation: `The seller answers us ${oursText}, so the paywall is up, but you got ${describeYours(youSaw)}: the block is on your path — your IP address, network, region or client signature (User-Agent, TLS fingerprint) is refused by the seller's edge. Call from another network or ask the seller to allow agents on paid routes.`,
    };
  }
  if (youSaw === 404 || youSaw === 400 || youSaw === 405 || youSaw === 422) {
    return {
      blockedOn: "your_request",
      explanation: `The URL answers us ${oursText}, but you got ${youSaw}: your request differs from this URL (path, method, parameters or body). Send exactly this URL.`,
    };
  }
  return {
    blockedOn: "unknown",
    explanation: `The seller answers us ${oursText}; your ${youSaw} does not point to a block we can place.`,
  };
}

const BlockedAnswer = z.object({
  product: z.literal("doctor.blocked"),
  url: z.string(),
  youSaw: z.object({ status: z.number().int().nullable().describe("The status the caller reported") }),
  weSaw: CheckAnswerSchema.describe("The doctor's own check of the URL"),
  blockedOn: z
    .enum(BLOCKED_ON)
    .describe("your_path, seller_side, our_path, your_request (the URL is wrong), none, unknown"),
  explanation: z.string(),
  checkedAt: z.iso.datetime(),
  notice: z.string().optional(),
});

export function blockedProduct(runtime: DoctorRuntime) {
  return product({
    sku: "doctor.blocked",
    method: "GET",
    path: "/v1/doctor/blocked",
    summary: "Is the block on your path or on the seller's side?",
    description:
      "Pass the URL and the HTTP status you got. The doctor requests the seller itself (unpaid) and says whether " +
      "the block is on your path (IP, region, bot wall), on the seller's side, or not a block at all. It never buys around a block.",
    status: "live",
    tags: ["doctor", "x402"],
    price: "0.005",
    query: z.object({
      url: UrlParam,
      status: z.coerce
        .number({ error: "must be an HTTP status code such as 403" })
        .int({ error: "must be an HTTP status code such as 403" })
        .min(100, { error: "must be an HTTP status code from 100 to 599" })
        .max(599, { error: "must be an HTTP status code from 100 to 599" })
        .optional()
        .describe("The HTTP status you got from the seller"),
    }),
    answer: BlockedAnswer,
    example: { url: "https://api.example.com/v1/data", status: "403" },
    async check({ query }) {
      return urlRefusal(query.url, runtime);
    },
    async handle({ query }, ctx) {
      try {
        const { answer } = await runCheckup(query.url, checkDeps(runtime, ctx));
        const youSaw = query.status ?? null;
        return ok({
          product: "doctor.blocked" as const,
          url: query.url,
          youSaw: { status: youSaw },
          weSaw: answer,
          ...explainBlock(youSaw, answer),
          checkedAt: answer.checkedAt,
          ...liveNotice(ctx),
        });
      } catch (error) {
        if (error instanceof FetchRefusedError) return refusedOutcome(error);
        throw error;
      }
    },
  });
}
