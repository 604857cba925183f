// GET /v1/doctor/checkup: checks an x402 endpoint's paywall without buying anything.
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
import { CheckAnswerSchema } from "./answer.ts";
import { runCheckup } from "./probe.ts";

const CheckupAnswer = CheckAnswerSchema.extend({ notice: z.string().optional() });

export function checkupProduct(runtime: DoctorRuntime) {
  return product({
    sku: "doctor.checkup",
    method: "GET",
    path: "/v1/doctor/checkup",
    summary: "Check an x402 endpoint's paywall without paying",
    description:
      "Requests the URL unpaid and checks its x402 v2 challenge: the PAYMENT-REQUIRED header decodes, every accepts " +
      "field is valid (scheme, CAIP-2 network, the network's real USDC, atomic amount, payTo, the token's EIP-712 " +
      "domain in extra, maxTimeoutSeconds, resource URL), browsers can read it (CORS) and it answers quickly. " +
      "Each problem comes with its fix. No purchase is made.",
    status: "live",
    tags: ["doctor", "x402"],
    price: "0.002",
    query: z.object({ url: UrlParam }),
    answer: CheckupAnswer,
    example: { url: "https://api.example.com/v1/data" },
    async check({ query }) {
      return urlRefusal(query.url, runtime);
    },
    async handle({ query }, ctx) {
      try {
        const { answer } = await runCheckup(query.url, checkDeps(runtime, ctx));
        return ok({ ...answer, ...liveNotice(ctx) });
      } catch (error) {
        if (error instanceof FetchRefusedError) return refusedOutcome(error);
        throw error;
      }
    },
  });
}
