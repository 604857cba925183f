// POST /v1/doctor/payment (JSON body) and GET /v1/doctor/payment (the same names as query parameters):
// two declarations of one product, sharing one handler.
import { z } from "zod";
import { type HandlerContext, ok, product } from "../../../catalog/product.ts";
import { CONTROL_CHARACTERS_MESSAGE, hasUnsafeCharacters } from "../../../catalog/text-guard.ts";
import { runCheckup } from "../checkup/probe.ts";
import { FetchRefusedError } from "../fetcher/address-policy.ts";
import { keepUnknownReason } from "../repository.ts";
import {
  checkDeps,
  type DoctorRuntime,
  liveNotice,
  refusedOutcome,
  UrlParam,
  urlRefusal,
} from "../runtime.ts";
import { type DiagnoseInput, DiagnosisAnswer, diagnose } from "./diagnose.ts";

const MAX_TEXT = 20_000;

/** Pasted text, or the JSON value itself in a JSON body (kept as its JSON text). */
const PastedText = (what: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .transform((value) => (typeof value === "string" ? value : JSON.stringify(value)))
    .pipe(
      z
        .string()
        .trim()
        .min(1, { error: `${what} is empty` })
        .max(MAX_TEXT, { error: `${what} is longer than ${MAX_TEXT} characters` })
        .refine((text) => !hasUnsafeCharacters(text), { error: `${what} ${CONTROL_CHARACTERS_MESSAGE}` }),
    );

const descriptions = {
  url: "The seller's endpoint; when no challenge is given the doctor fetches the current one",
  challenge: "The seller's payment request: the PAYMENT-REQUIRED header value, or the 402 body",
  response: "The error received (facilitator answer, 402 body, PAYMENT-RESPONSE header, exception message)",
  payment: "Optional: the payment sent (PAYMENT-SIGNATURE header value or its JSON), to cross-check",
};

const PaymentBody = z.object({
  url: UrlParam.optional().describe(descriptions.url),
  challenge: PastedText("challenge").optional().describe(descriptions.challenge),
  response: PastedText("response").describe(descriptions.response),
  payment: PastedText("payment").optional().describe(descriptions.payment),
});

const PaymentQuery = z.object({
  url: UrlParam.optional().describe(descriptions.url),
  challenge: z.string().trim().min(1).optional().describe(descriptions.challenge),
  response: z
    .string({ error: "is required: the error you received" })
    .trim()
    .min(1, { error: "is required: the error you received" })
    .describe(descriptions.response),
  payment: z.string().trim().min(1).optional().describe(descriptions.payment),
});

const PaymentAnswer = DiagnosisAnswer;

const PAYMENT_PRICE_FORMULA =
  "0.005 USD; 0.01 USD when url is given without challenge (the doctor then fetches the seller's current challenge)";

function diagnosisPriceUsd(input: Partial<DiagnoseInput>): string {
  return input.url !== undefined && input.challenge === undefined ? "0.01" : "0.005";
}

function toInput(raw: z.output<typeof PaymentBody> | z.output<typeof PaymentQuery>): DiagnoseInput {
  return {
    response: raw.response,
    ...(raw.url !== undefined ? { url: raw.url } : {}),
    ...(raw.challenge !== undefined ? { challenge: raw.challenge } : {}),
    ...(raw.payment !== undefined ? { payment: raw.payment } : {}),
  };
}

async function handleDiagnosis(input: DiagnoseInput, ctx: HandlerContext, runtime: DoctorRuntime) {
  try {
    const diagnosis = await diagnose(input, async (url) => {
      const { answer, challenge } = await runCheckup(url, checkDeps(runtime, ctx));
      return { ...(challenge ? { challenge } : {}), problems: answer.paywall.problems, price: answer.price };
    });
    const key = diagnosis.review.key;
    return ok(
      { ...diagnosis, ...liveNotice(ctx) },
      key === null ? undefined : async () => keepUnknownReason(ctx.store, key, input.response),
    );
  } catch (error) {
    if (error instanceof FetchRefusedError) return refusedOutcome(error);
    throw error;
  }
}

const summary = "Diagnose a failed x402 payment: one cause, whose side it is on, and the fix";
const description =
  "Give the error you received (response, required), and if you have them the seller's challenge and the " +
  "payment you sent. The doctor maps the reason onto one of its catalogued causes (names from the x402 spec, " +
  "the SDKs and hosted facilitators), checks the payment against the challenge (network, asset, amount, payTo, " +
  "validity window, clock, EIP-712 signature) and names the side at fault (client, wallet, network, seller, " +
  "facilitator) with a fix. Unknown reasons are kept verbatim and reviewed nightly.";
const exampleResponse = JSON.stringify({
  isValid: false,
  invalidReason: "invalid_exact_evm_payload_signature",
});

export function paymentProducts(runtime: DoctorRuntime) {
  const post = product({
    sku: "doctor.payment",
    method: "POST",
    path: "/v1/doctor/payment",
    summary,
    description,
    status: "live",
    tags: ["doctor", "x402"],
    price: {
      dynamic: ({ body }) => diagnosisPriceUsd(body),
      minUsd: "0.005",
      maxUsd: "0.01",
      formula: PAYMENT_PRICE_FORMULA,
    },
    body: PaymentBody,
    answer: PaymentAnswer,
    exampleBody: { response: exampleResponse },
    async check({ body }) {
      return body.url === undefined ? undefined : urlRefusal(body.url, runtime);
    },
    handle: async ({ body }, ctx) => handleDiagnosis(toInput(body), ctx, runtime),
  });
  const get = product({
    sku: "doctor.payment.get",
    method: "GET",
    path: "/v1/doctor/payment",
    summary: `${summary} (query-string form)`,
    description: `${description} The same product as POST /v1/doctor/payment, with its fields as query parameters.`,
    status: "live",
    tags: ["doctor", "x402"],
    price: {
      dynamic: ({ query }) => diagnosisPriceUsd(query),
      minUsd: "0.005",
      maxUsd: "0.01",
      formula: PAYMENT_PRICE_FORMULA,
    },
    query: PaymentQuery,
    answer: PaymentAnswer,
    example: { response: "invalid_exact_evm_payload_signature" },
    async check({ query }) {
      return query.url === undefined ? undefined : urlRefusal(query.url, runtime);
    },
    handle: async ({ query }, ctx) => handleDiagnosis(toInput(query), ctx, runtime),
  });
  return [post, get];
}
