// The check answer: what /v1/doctor/checkup returns and what `weSaw` of /v1/doctor/blocked holds.
import { z } from "zod";

const VERDICTS = [
  "seller_up",
  "seller_problem",
  "seller_down",
  "client_problem",
  "blocked",
  "delivered",
] as const;
export type Verdict = (typeof VERDICTS)[number];

const PAYWALL_STATES = [
  "ok_402",
  "invalid_402",
  "v1_402",
  "body_only_402",
  "unreadable_402",
  "bare_402",
  "free_2xx",
  "auth_required",
  "blocked",
  "rate_limited",
  "client_error",
  "server_error",
  "unreachable",
  "timeout",
] as const;
export type PaywallState = (typeof PAYWALL_STATES)[number];

export const ProblemSchema = z.object({
  code: z.string().describe("Cause code from the doctor's catalogue (shared with /v1/doctor/payment)"),
  severity: z.enum(["error", "warning", "info"]).describe("error: payments fail; warning: some clients fail"),
  message: z.string().describe("What was seen"),
  fix: z.string().describe("How to fix it"),
  where: z.string().optional().describe("Where in the challenge, e.g. accepts[0].asset"),
});

export const PriceItemSchema = z.object({
  usd: z.number().nullable().describe("USD per call when the asset is the network's USDC; null otherwise"),
  network: z.string().describe("CAIP-2 network, e.g. eip155:8453"),
  asset: z.string(),
  scheme: z.string().describe("Payment scheme, e.g. exact"),
  amount: z.string().describe("Atomic units of the asset"),
  payTo: z.string(),
});

export const CheckAnswerSchema = z.object({
  product: z.literal("doctor.checkup"),
  verdict: z
    .enum(VERDICTS)
    .describe(
      "seller_up: a valid 402; seller_problem: the paywall is broken; seller_down: no answer or 5xx; client_problem: the URL or request is wrong; blocked: a firewall, region block or rate limit; delivered: data without payment",
    ),
  url: z.string().describe("The URL checked"),
  finalUrl: z.string().describe("The URL that answered, after redirects"),
  method: z
    .enum(["GET", "POST"])
    .describe("The method that got the answer (POST only when GET was refused with 405)"),
  paywall: z.object({
    state: z.enum(PAYWALL_STATES).describe("ok_402 when the 402 carries a valid v2 challenge"),
    problems: z.array(ProblemSchema),
    x402Version: z.number().int().nullable().describe("x402Version of the challenge; null without one"),
  }),
  price: z.array(PriceItemSchema).describe("Every payment option offered"),
  payTo: z.array(z.string()).describe("Every receiving address offered"),
  latencyMs: z.number().int().nullable().describe("From sending the request to the answer's headers"),
  evidence: z.object({
    httpStatus: z.number().int().nullable(),
    bodySha256: z.string().nullable().describe("SHA-256 (hex) of the body as received"),
    bodyBytes: z.number().int().nonnegative(),
    truncated: z.boolean().describe("The body was longer than the doctor reads"),
    contentType: z.string().nullable(),
    redirects: z.array(z.string()),
    failure: z.string().nullable().describe("Why no answer came, when none did"),
  }),
  checkedAt: z.iso.datetime(),
});

export type CheckAnswer = z.infer<typeof CheckAnswerSchema>;
