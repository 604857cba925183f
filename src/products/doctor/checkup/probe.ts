// One checkup: request the URL unpaid through the SSRF-safe fetcher, read and validate its challenge, check
// that browsers can read it, and name the verdict. Never pays.
import { sha256Bytes } from "../bytes-digest.ts";
import { causesInText } from "../diagnosis/causes.ts";
import { FetchFailedError, type SafeFetcher, type SafeResponse } from "../fetcher/safe-fetcher.ts";
import type { CheckAnswer, PaywallState, Verdict } from "./answer.ts";
import { type Challenge, readChallenge } from "./challenge.ts";
import { oversizeChallenge, proxyRefusal } from "./header-block.ts";
import { paywallOrder } from "./paywall-order.ts";
import { hasErrors, type Problem, problem } from "./problems.ts";
import { checkPaymentRequired, checkV1Body, type RequirementsReport } from "./requirements.ts";

/** Above this the 402 is slow enough to time clients out. */
const SLOW_CHALLENGE_MS = 1000;

export interface CheckDeps {
  fetcher: SafeFetcher;
  /** The Origin the CORS checks send (the doctor's own public origin). */
  origin: string;
}

/** The answer plus what other doctor products build on (the raw response and the decoded challenge). */
export interface CheckResult {
  answer: CheckAnswer;
  response?: SafeResponse;
  challenge?: Challenge;
}

const EMPTY_REPORT: RequirementsReport = { x402Version: null, problems: [], price: [], payTo: [] };

function hasToken(headerValue: string | null, token: string): boolean {
  if (!headerValue) return false;
  return headerValue
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .some((t) => t === "*" || t === token.toLowerCase());
}

function analyse402(response: SafeResponse): {
  state: PaywallState;
  report: RequirementsReport;
  challenge: Challenge;
} {
  const text = response.body.toString("utf8");
  const challenge = readChallenge(response.headers.get("payment-required"), text);
  switch (challenge.kind) {
    case "header": {
      const report = checkPaymentRequired(challenge.paymentRequired, response.url);
      if (challenge.encoding === "base64url") {
        report.problems.unshift(
          problem(
            "challenge_base64url",
            "error",
            "PAYMENT-REQUIRED is base64url, not standard base64",
            "PAYMENT-REQUIRED",
          ),
        );
      } else if (challenge.encoding === "json") {
        report.problems.unshift(
          problem(
            "challenge_missing",
            "error",
            "PAYMENT-REQUIRED is raw JSON, not base64-encoded JSON",
            "PAYMENT-REQUIRED",
          ),
        );
      }
      const bodyAccepts = challenge.body?.accepts;
      if (
        Array.isArray(bodyAccepts) &&
        JSON.stringify(bodyAccepts) !== JSON.stringify(challenge.paymentRequired.accepts)
      ) {
        report.problems.push(
          problem(
            "header_body_mismatch",
            "warning",
            "the body's accepts differ from the header's",
            "body.accepts",
          ),
        );
      }
      return { state: hasErrors(report.problems) ? "invalid_402" : "ok_402", report, challenge };
    }
    case "unreadable_header":
      return {
        state: "unreadable_402",
        challenge,
        report: {
          ...EMPTY_REPORT,
          problems: [
            problem(
              "challenge_missing",
              "error",
              `PAYMENT-REQUIRED cannot be decoded: ${challenge.error}`,
              "PAYMENT-REQUIRED",
            ),
          ],
        },
      };
    case "v1_body":
      return { state: "v1_402", report: checkV1Body(challenge.paymentRequired), challenge };
    case "v2_body_only": {
      const report = checkPaymentRequired(challenge.paymentRequired, response.url);
      report.problems.unshift(
        problem(
          "challenge_missing",
          "error",
          "the v2 challenge is only in the body; v2 clients read the PAYMENT-REQUIRED header",
          "PAYMENT-REQUIRED",
        ),
      );
      return { state: "body_only_402", report, challenge };
    }
    case "none": {
      const hostPlatform = causesInText(text).some((c) => c.code === "host_platform_402");
      const found = hostPlatform
        ? problem(
            "host_platform_402",
            "error",
            "the 402 comes from the hosting platform, not from an x402 paywall",
          )
        : problem(
            "challenge_missing",
            "error",
            "the 402 has neither a PAYMENT-REQUIRED header nor an x402 body",
          );
      return { state: "bare_402", report: { ...EMPTY_REPORT, problems: [found] }, challenge };
    }
  }
}

function looksLikeWaf(response: SafeResponse): boolean {
  if (response.headers.get("cf-mitigated")) return true;
  return causesInText(response.body.toString("utf8").slice(0, 20_000)).some((c) => c.code === "waf_block");
}

function classifyOther(response: SafeResponse): {
  state: PaywallState;
  verdict: Verdict;
  problems: Problem[];
} {
  const status = response.status;
  if (status >= 200 && status < 300) {
    return {
      state: "free_2xx",
      verdict: "delivered",
      problems: [problem("paid_route_free", "warning", `answered ${status} without payment`)],
    };
  }
  if (status === 401) {
    return {
      state: "auth_required",
      verdict: "seller_problem",
      problems: [problem("auth_before_paywall", "error", "answered 401 instead of 402")],
    };
  }
  if (status === 451) {
    return {
      state: "blocked",
      verdict: "blocked",
      problems: [problem("geo_block", "error", "answered 451 (unavailable for legal reasons)")],
    };
  }
  if (status === 403) {
    const message = looksLikeWaf(response)
      ? "answered 403 with a firewall or bot challenge"
      : "answered 403 Forbidden";
    return { state: "blocked", verdict: "blocked", problems: [problem("waf_block", "error", message)] };
  }
  if (status === 429) {
    const retryAfter = response.headers.get("retry-after");
    return {
      state: "rate_limited",
      verdict: "blocked",
      problems: [
        problem("rate_limited", "warning", `answered 429${retryAfter ? ` (Retry-After ${retryAfter})` : ""}`),
      ],
    };
  }
  if (status === 404 || status === 410) {
    return {
      state: "client_error",
      verdict: "client_problem",
      problems: [problem("endpoint_not_found", "error", `answered ${status}: no such endpoint`)],
    };
  }
  if (status >= 400 && status < 500) {
    return {
      state: "client_error",
      verdict: "client_problem",
      problems: [
        problem(
          "request_rejected",
          "error",
          `answered ${status}: the seller rejects the request before asking for payment`,
        ),
      ],
    };
  }
  return {
    state: "server_error",
    verdict: "seller_down",
    problems: [problem("seller_server_error", "error", `answered ${status}`)],
  };
}

async function corsProblems(url: string, response: SafeResponse, deps: CheckDeps): Promise<Problem[]> {
  const found: Problem[] = [];
  const allowOrigin = response.headers.get("access-control-allow-origin");
  const expose = response.headers.get("access-control-expose-headers");
  if (!allowOrigin) {
    found.push(
      problem(
        "cors_hides_challenge",
        "warning",
        "no Access-Control-Allow-Origin: browsers cannot read the 402",
      ),
    );
  } else if (!hasToken(expose, "payment-required")) {
    found.push(
      problem(
        "cors_hides_challenge",
        "warning",
        "Access-Control-Expose-Headers does not list PAYMENT-REQUIRED",
      ),
    );
  }
  try {
    const preflight = await deps.fetcher.fetch({
      url,
      method: "OPTIONS",
      followRedirects: false,
      headers: {
        origin: deps.origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "payment-signature",
      },
    });
    const allowed = preflight.headers.get("access-control-allow-headers");
    if (preflight.status < 200 || preflight.status >= 300 || !hasToken(allowed, "payment-signature")) {
      found.push(
        problem(
          "preflight_refuses_payment_header",
          "warning",
          `the preflight answered ${preflight.status}${allowed ? ` allowing ${allowed}` : " without Access-Control-Allow-Headers"}`,
        ),
      );
    }
  } catch {
    // A preflight that fails to connect adds nothing the main request did not show.
  }
  return found;
}

function cacheProblems(response: SafeResponse): Problem[] {
  const cacheControl = response.headers.get("cache-control")?.toLowerCase() ?? "";
  if (/no-store|private|no-cache|max-age=0\b/.test(cacheControl)) return [];
  return [
    problem(
      "challenge_cacheable",
      "info",
      cacheControl ? `the 402 says Cache-Control: ${cacheControl}` : "the 402 has no Cache-Control: no-store",
    ),
  ];
}

async function request(
  url: string,
  deps: CheckDeps,
): Promise<{ response: SafeResponse; method: "GET" | "POST" }> {
  const headers = { origin: deps.origin };
  const response = await deps.fetcher.fetch({ url, headers });
  if (response.status === 405 && /\bpost\b/i.test(response.headers.get("allow") ?? "")) {
    const posted = await deps.fetcher.fetch({
      url,
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: "{}",
    });
    return { response: posted, method: "POST" };
  }
  return { response, method: "GET" };
}

/** Runs one checkup. A URL the guard refuses throws FetchRefusedError (the caller answers 400). */
export async function runCheckup(url: string, deps: CheckDeps): Promise<CheckResult> {
  const checkedAt = new Date().toISOString();
  let outcome: { response: SafeResponse; method: "GET" | "POST" };
  try {
    outcome = await request(url, deps);
  } catch (error) {
    if (!(error instanceof FetchFailedError)) throw error;
    const timeout = error.kind === "timeout";
    return {
      answer: {
        product: "doctor.checkup",
        verdict: "seller_down",
        url,
        finalUrl: error.url,
        method: "GET",
        paywall: {
          state: timeout ? "timeout" : "unreachable",
          problems: [problem("seller_unreachable", "error", error.message)],
          x402Version: null,
        },
        price: [],
        payTo: [],
        latencyMs: null,
        evidence: {
          httpStatus: null,
          bodySha256: null,
          bodyBytes: 0,
          truncated: false,
          contentType: null,
          redirects: [],
          failure: `${error.kind}: ${error.message}`,
        },
        checkedAt,
      },
    };
  }
  const { response, method } = outcome;
  let state: PaywallState;
  let verdict: Verdict;
  let report: RequirementsReport;
  let challenge: Challenge | undefined;
  if (response.status === 402) {
    const analysed = analyse402(response);
    ({ state, report, challenge } = analysed);
    verdict = state === "ok_402" ? "seller_up" : "seller_problem";
    if (state !== "bare_402") {
      report.problems.push(...(await corsProblems(response.url, response, deps)), ...cacheProblems(response));
    }
    report.problems.push(...oversizeChallenge(response));
    if (response.latencyMs > SLOW_CHALLENGE_MS) {
      report.problems.push(problem("slow_challenge", "warning", `the 402 took ${response.latencyMs} ms`));
    }
  } else {
    const other = classifyOther(response);
    state = other.state;
    verdict = other.verdict;
    report = { ...EMPTY_REPORT, problems: [...other.problems, ...proxyRefusal(response)] };
  }
  const order = await paywallOrder(url, method, response.status, deps);
  if (order.sellerFault) {
    verdict = "seller_problem";
    report.problems = order.problems;
  } else {
    report.problems.push(...order.problems);
  }
  return {
    response,
    ...(challenge ? { challenge } : {}),
    answer: {
      product: "doctor.checkup",
      verdict,
      url,
      finalUrl: response.url,
      method,
      paywall: { state, problems: report.problems, x402Version: report.x402Version },
      price: report.price,
      payTo: report.payTo,
      latencyMs: response.latencyMs,
      evidence: {
        httpStatus: response.status,
        bodySha256: sha256Bytes(response.body),
        bodyBytes: response.body.length,
        truncated: response.truncated,
        contentType: response.headers.get("content-type"),
        redirects: response.redirects,
        failure: null,
      },
      checkedAt,
    },
  };
}
