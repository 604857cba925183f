// Diagnoses one failed payment: the reason in the error received, checked against the seller's challenge
// and the buyer's payment payload, resolved to one canonical cause with its side and fix.
import { z } from "zod";
import { PriceItemSchema, ProblemSchema } from "../checkup/answer.ts";
import { type Challenge, readPastedChallenge } from "../checkup/challenge.ts";
import type { Problem } from "../checkup/problems.ts";
import { checkPaymentRequired, checkV1Body, type PriceItem } from "../checkup/requirements.ts";
import { type Cause, causeByCode, causeForReason, causesInText, type Side } from "./causes.ts";
import { type CrossCheck, crossCheck } from "./cross-check.ts";
import { type ExtractedReason, extractReason, unknownReasonKey } from "./reason.ts";

export interface DiagnoseInput {
  url?: string;
  challenge?: string;
  response: string;
  payment?: string;
}

/** The seller's current challenge, fetched by the doctor when only `url` was given. */
interface FetchedChallenge {
  challenge?: Challenge;
  problems: Problem[];
  price: PriceItem[];
}

const STATUS_CAUSES: Record<number, string> = {
  400: "request_rejected",
  401: "auth_before_paywall",
  403: "waf_block",
  404: "endpoint_not_found",
  405: "request_rejected",
  410: "endpoint_not_found",
  412: "permit2_allowance_required",
  422: "request_rejected",
  429: "rate_limited",
  451: "geo_block",
  500: "seller_server_error",
  502: "facilitator_unavailable",
  503: "seller_server_error",
  504: "facilitator_unavailable",
};

/** Reasons that say little: a more specific cause found in the text or the evidence replaces them. */
const GENERIC = new Set([
  "facilitator_unexpected_error",
  "settlement_failed",
  "simulation_failed",
  "invalid_payment_requirements",
  "payment_not_received",
  "payload_malformed",
]);

/** Which evidence may explain a specific reported cause (a signature fails *because* the domain is wrong). */
const EXPLAINED_BY: Record<string, string[]> = {
  signature_invalid: [
    "eip712_domain_mismatch",
    "eip712_domain_missing",
    "recipient_mismatch",
    "amount_mismatch",
    "signature_invalid",
    "signature_unparseable",
  ],
  no_matching_requirements: [
    "no_matching_requirements",
    "network_mismatch",
    "scheme_mismatch",
    "asset_mismatch",
  ],
  network_mismatch: ["legacy_network_name", "network_invalid", "network_mismatch"],
  x402_version_mismatch: ["challenge_v1_only", "challenge_version_unsupported", "x402_version_mismatch"],
  amount_mismatch: ["amount_not_atomic", "amount_mismatch", "no_matching_requirements"],
  recipient_mismatch: ["pay_to_invalid", "recipient_mismatch"],
  challenge_missing: ["challenge_base64url", "challenge_v1_only", "host_platform_402"],
};

function explains(reported: string | undefined, evidence: string): boolean {
  if (reported === undefined || GENERIC.has(reported)) return true;
  return EXPLAINED_BY[reported]?.includes(evidence) ?? false;
}

const SIDES = ["client", "wallet", "network", "seller", "facilitator"] as const;

export const DiagnosisAnswer = z.object({
  product: z.literal("doctor.payment"),
  verdict: z
    .enum(["diagnosed", "unknown_reason", "no_failure"])
    .describe("unknown_reason: not in the catalogue; the reason is kept verbatim for review"),
  cause: z.string().describe("Canonical cause code (unknown when the reason is not in the catalogue)"),
  title: z.string(),
  side: z
    .enum(SIDES)
    .nullable()
    .describe("Whose side the failure is on: client, wallet, network, seller or facilitator"),
  fix: z.string(),
  catalogueId: z.string().nullable().describe("Row of the doctor's real-world failure catalogue"),
  reason: z.object({
    raw: z.string().nullable().describe("The reason as received, verbatim"),
    message: z.string().nullable(),
    httpStatus: z.number().int().nullable(),
    known: z.boolean(),
    matchedBy: z.enum(["reason", "text", "status", "evidence", "settlement"]).nullable(),
  }),
  evidence: z.array(z.string()).describe("What the diagnosis rests on"),
  crossCheck: z.object({
    performed: z.boolean().describe("A payment payload was given and checked against the challenge"),
    findings: z.array(
      z.object({ code: z.string(), severity: z.enum(["error", "warning", "info"]), message: z.string() }),
    ),
    payer: z.string().nullable(),
    signature: z.enum(["recovers_to_payer", "does_not_recover", "not_checked"]),
    clockSkewSeconds: z.number().int().nullable(),
  }),
  challenge: z.object({
    source: z.enum(["pasted", "fetched", "none"]),
    problems: z.array(ProblemSchema),
    price: z.array(PriceItemSchema),
  }),
  alsoPossible: z.array(z.object({ cause: z.string(), side: z.enum(SIDES) })),
  url: z.string().nullable(),
  review: z.object({
    kept: z.boolean().describe("An unknown reason is stored verbatim and reviewed nightly"),
    key: z.string().nullable(),
  }),
  generatedAt: z.iso.datetime(),
  notice: z.string().optional(),
});

type Diagnosis = z.infer<typeof DiagnosisAnswer>;

function pastedChallenge(text: string): FetchedChallenge {
  const challenge = readPastedChallenge(text);
  if (challenge.kind === "header" || challenge.kind === "v2_body_only") {
    const report = checkPaymentRequired(challenge.paymentRequired);
    return { challenge, problems: report.problems, price: report.price };
  }
  if (challenge.kind === "v1_body") {
    const report = checkV1Body(challenge.paymentRequired);
    return { challenge, problems: report.problems, price: report.price };
  }
  return { challenge, problems: [], price: [] };
}

function acceptsOf(challenge: Challenge | undefined): unknown[] | undefined {
  if (!challenge || !("paymentRequired" in challenge)) return undefined;
  const accepts = challenge.paymentRequired.accepts;
  return Array.isArray(accepts) ? accepts : undefined;
}

interface Reported {
  cause: Cause;
  matchedBy: "reason" | "text" | "status";
}

function reportedCauses(extracted: ExtractedReason): Reported[] {
  const found: Reported[] = [];
  const add = (cause: Cause | undefined, matchedBy: Reported["matchedBy"]) => {
    if (cause && !found.some((f) => f.cause.code === cause.code)) found.push({ cause, matchedBy });
  };
  for (const candidate of extracted.candidates) add(causeForReason(candidate), "reason");
  for (const cause of causesInText(extracted.text)) add(cause, "text");
  const byStatus = extracted.httpStatus !== null ? STATUS_CAUSES[extracted.httpStatus] : undefined;
  if (byStatus) add(causeByCode(byStatus), "status");
  return found;
}

type ChallengeSource = "pasted" | "fetched" | "none";

/** The challenge pasted, or fetched from the URL when a fetcher is given, or none. */
async function readChallenge(
  input: DiagnoseInput,
  fetchChallenge?: (url: string) => Promise<FetchedChallenge>,
): Promise<{ source: ChallengeSource; seen: FetchedChallenge }> {
  if (input.challenge !== undefined) return { source: "pasted", seen: pastedChallenge(input.challenge) };
  if (input.url !== undefined && fetchChallenge)
    return { source: "fetched", seen: await fetchChallenge(input.url) };
  return { source: "none", seen: { problems: [], price: [] } };
}

function evidenceLines(
  extracted: ExtractedReason,
  source: ChallengeSource,
  seen: FetchedChallenge,
  checked: CrossCheck,
): string[] {
  const evidence: string[] = [];
  if (extracted.raw)
    evidence.push(`reason received: ${extracted.raw}${extracted.message ? ` (${extracted.message})` : ""}`);
  else if (extracted.message) evidence.push(`error received: ${extracted.message}`);
  if (extracted.httpStatus !== null) evidence.push(`HTTP status ${extracted.httpStatus}`);
  evidence.push(`read from: ${[...new Set(extracted.sources)].join(", ")}`);
  if (source !== "none") {
    const errors = seen.problems.filter((p) => p.severity === "error");
    evidence.push(
      `${source} challenge: ${seen.price.length} payment option(s), ${errors.length ? `errors: ${errors.map((p) => p.code).join(", ")}` : "no errors"}`,
    );
  }
  for (const finding of checked.findings) evidence.push(`payment ${finding.severity}: ${finding.message}`);
  return evidence;
}

interface Verdict {
  verdict: Diagnosis["verdict"];
  cause: Cause | undefined;
  matchedBy: Diagnosis["reason"]["matchedBy"];
}

/**
 * A settlement of a non-2xx answer is the seller charging for an error; a settled 2xx is no failure. Else the
 * first specific reported cause, refined by an error in the evidence it explains.
 */
function chooseCause(extracted: ExtractedReason, reported: Reported[], evidenceErrors: string[]): Verdict {
  if (extracted.settled === true) {
    const status = extracted.httpStatus;
    if (status !== null && (status < 200 || status >= 300))
      return {
        verdict: "diagnosed",
        cause: causeByCode("seller_charged_for_error"),
        matchedBy: "settlement",
      };
    return { verdict: "no_failure", cause: undefined, matchedBy: null };
  }
  let first = reported[0];
  if (first && GENERIC.has(first.cause.code)) {
    first = reported.find((r) => !GENERIC.has(r.cause.code)) ?? first;
  }
  const refinement = evidenceErrors.find(
    (code) => code !== first?.cause.code && explains(first?.cause.code, code),
  );
  if (refinement) return { verdict: "diagnosed", cause: causeByCode(refinement), matchedBy: "evidence" };
  if (first) return { verdict: "diagnosed", cause: first.cause, matchedBy: first.matchedBy };
  return { verdict: "unknown_reason", cause: undefined, matchedBy: null };
}

export async function diagnose(
  input: DiagnoseInput,
  fetchChallenge?: (url: string) => Promise<FetchedChallenge>,
): Promise<Diagnosis> {
  const extracted = extractReason(input.response);
  const { source, seen } = await readChallenge(input, fetchChallenge);
  const checked: CrossCheck = await crossCheck(input.payment, acceptsOf(seen.challenge));
  const reported = reportedCauses(extracted);
  const evidenceErrors = [
    ...checked.findings.filter((f) => f.severity === "error").map((f) => f.code),
    ...seen.problems.filter((p) => p.severity === "error").map((p) => p.code),
  ].filter((code) => causeForReason(code) !== undefined);
  const { verdict, cause, matchedBy } = chooseCause(extracted, reported, evidenceErrors);
  const known = verdict !== "unknown_reason";
  // A reason no catalogue entry matched is kept for review, even when the evidence explained the failure.
  const reviewKey =
    verdict === "unknown_reason" ||
    (matchedBy === "evidence" && !reported.some((r) => r.matchedBy === "reason"))
      ? unknownReasonKey(extracted)
      : null;
  const alsoPossible = [...reported.map((r) => r.cause), ...evidenceErrors.map((c) => causeByCode(c))]
    .filter((c, i, all) => c.code !== cause?.code && all.findIndex((o) => o.code === c.code) === i)
    .slice(0, 5)
    .map((c) => ({ cause: c.code, side: c.side as Side }));

  return {
    product: "doctor.payment",
    verdict,
    cause: verdict === "no_failure" ? "none" : (cause?.code ?? "unknown"),
    title:
      verdict === "no_failure"
        ? `The payment settled${extracted.transaction ? ` (transaction ${extracted.transaction})` : ""}`
        : (cause?.title ?? "A failure reason the catalogue does not know yet"),
    side: cause?.side ?? null,
    fix:
      verdict === "no_failure"
        ? "Nothing failed in what was given; if no data arrived, diagnose the seller's answer instead."
        : (cause?.fix ??
          "The reason is kept verbatim and reviewed; meanwhile retry once with a fresh challenge and payment, and send the seller's full error to the seller."),
    catalogueId: cause?.catalogueId ?? null,
    reason: {
      raw: extracted.raw,
      message: extracted.message,
      httpStatus: extracted.httpStatus,
      known,
      matchedBy,
    },
    evidence: evidenceLines(extracted, source, seen, checked),
    crossCheck: checked,
    challenge: { source, problems: seen.problems, price: seen.price },
    alsoPossible,
    url: input.url ?? null,
    review: { kept: reviewKey !== null, key: reviewKey },
    generatedAt: new Date().toISOString(),
  };
}
