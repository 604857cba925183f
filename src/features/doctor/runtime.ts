// What every doctor product shares: settings, the SSRF-safe fetcher, and the `url` parameter rules.
import { z } from "zod";
import { badRequest, type ErrorOutcome, type HandlerContext } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import type { CheckDeps } from "./checkup/probe.ts";
import { type DoctorConfig, loadDoctorConfig } from "./config.ts";
import { checkUrl, DEFAULT_PORTS, FetchRefusedError, type UrlPolicy } from "./fetcher/address-policy.ts";
import { type Resolver, SafeFetcher } from "./fetcher/safe-fetcher.ts";

export interface DoctorRuntime {
  settings: DoctorConfig;
  fetcher: SafeFetcher;
  policy: UrlPolicy;
}

export interface RuntimeOptions {
  /** Stands in for DNS (tests). */
  resolve?: Resolver;
}

export function createRuntime(config: Config, options: RuntimeOptions = {}): DoctorRuntime {
  const settings = loadDoctorConfig(config);
  const policy: UrlPolicy = { allowHosts: settings.allowHosts, allowedPorts: DEFAULT_PORTS };
  const fetcher = new SafeFetcher({
    timeoutMs: settings.fetchTimeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    userAgent: `paycall-doctor/0.1 (x402 checkup; ${config.contact})`,
    allowHosts: settings.allowHosts,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  return { settings, fetcher, policy };
}

export function checkDeps(runtime: DoctorRuntime, ctx: HandlerContext): CheckDeps {
  return { fetcher: runtime.fetcher, origin: new URL(ctx.config.publicUrl).origin };
}

export const UrlParam = z
  .string({ error: "is required: the absolute http(s) URL of the x402 endpoint" })
  .trim()
  .min(1, { error: "is required: the absolute http(s) URL of the x402 endpoint" })
  .max(2048)
  .refine(
    (value) => {
      try {
        return /^https?:$/.test(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: "must be an absolute http or https URL" },
  )
  .describe("Absolute http(s) URL of the x402 endpoint (ports 80 and 443, public addresses only)");

/** The SSRF checks that need no DNS, before payment: a refused URL is a 400 naming `parameter`. */
export function urlRefusal(url: string, runtime: DoctorRuntime, parameter = "url"): ErrorOutcome | undefined {
  try {
    checkUrl(url, runtime.policy);
    return undefined;
  } catch (error) {
    if (error instanceof FetchRefusedError) return refusedOutcome(error, parameter);
    throw error;
  }
}

export function refusedOutcome(error: FetchRefusedError, parameter = "url"): ErrorOutcome {
  return badRequest(parameter, `${parameter}: the doctor will not fetch this URL: ${error.message}`, {
    refusal: error.reason,
  });
}

/**
 * The service's replay mode marks answers without such a notice as recorded samples; the doctor's answers
 * are live requests to the URL given, so they say so themselves.
 */
export function liveNotice(ctx: HandlerContext): { notice?: string } {
  return ctx.config.upstreams === "replay"
    ? {
        notice:
          "The service runs with UPSTREAMS=replay, but this doctor answer comes from live requests to the URL given; it is not a recorded sample.",
      }
    : {};
}

export function storedNotice(ctx: HandlerContext): { notice?: string } {
  return ctx.config.upstreams === "replay"
    ? {
        notice:
          "The service runs with UPSTREAMS=replay; this is a stored doctor report, not a recorded sample.",
      }
    : {};
}
