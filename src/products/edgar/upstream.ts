// SEC EDGAR over its two hosts: data.sec.gov (submissions, XBRL company facts) and www.sec.gov (ticker file,
// filing folders). SEC fair access (https://www.sec.gov/search-filings/edgar-search-assistance/accessing-edgar-data):
// a declared User-Agent with a contact, at most 10 requests a second in total. Over that, SEC answers 429 and
// blocks the IP for about ten minutes; requests during the block extend it.
import {
  type ErrorOutcome,
  type HandlerContext,
  type SourceInfo,
  upstreamUnavailable,
} from "../../catalog/product.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../upstream/client.ts";

/**
 * SEC fair access: at most 10 requests a second per user in total, however many machines send them. Both
 * hosts book their request starts against one budget ("sec") in the store, so the spacing below holds for
 * the whole cluster: 8 a second, leaving headroom under SEC's 10.
 */
export const SEC_REQUESTS_PER_SECOND = 8;
/** After a 429 no request reaches either SEC host from any node for this long (SEC's block, never less). */
const SEC_BLOCK_MS = 10 * 60_000;
const SEC_SHARE: Omit<UpstreamSpec, "name" | "defaultBaseUrl"> = {
  budget: "sec",
  maxConcurrent: 2,
  minIntervalMs: Math.ceil(1000 / SEC_REQUESTS_PER_SECOND),
  timeoutMs: 60_000,
  retries: 3,
  // A 429 pauses the whole "sec" budget for the block: longer than any request waits, so it fails at once
  // (UpstreamBudgetError with the time left) and nothing is retried within seconds.
  maxRetryAfterMs: 60_000,
  throttle: { statuses: [429], defaultPauseMs: SEC_BLOCK_MS, minPauseMs: SEC_BLOCK_MS },
};

export const SEC_DATA_UPSTREAM: UpstreamSpec = {
  name: "sec-data",
  defaultBaseUrl: "https://data.sec.gov",
  ...SEC_SHARE,
};

export const SEC_WWW_UPSTREAM: UpstreamSpec = {
  name: "sec-www",
  defaultBaseUrl: "https://www.sec.gov",
  ...SEC_SHARE,
};

export const SEC_ATTRIBUTION = "Source: SEC EDGAR";

/**
 * While SEC's block holds (a 429 paused the "sec" budget on every node): the 503 a buyer whose answer needs
 * SEC gets, with Retry-After, nothing charged; null when SEC can be asked.
 */
export async function secBlockedOutcome(
  ctx: Pick<HandlerContext, "upstreams">,
): Promise<ErrorOutcome | null> {
  const { pausedUntilMs } = await ctx.upstreams.client(SEC_DATA_UPSTREAM).budgetState();
  if (pausedUntilMs === null) return null;
  const retryAfterSec = Math.max(1, Math.ceil((pausedUntilMs - Date.now()) / 1000));
  return upstreamUnavailable(
    `SEC EDGAR refused this service's requests (HTTP 429) and blocks them for about ten minutes; nothing was charged. Try again in about ${retryAfterSec} seconds.`,
    { retryAfterSec },
  );
}

/** A miss that waits for SEC (a queued fetch) becomes the block's 503 while SEC's block holds. */
export async function unlessSecBlocked(
  ctx: Pick<HandlerContext, "upstreams">,
  outcome: ErrorOutcome,
): Promise<ErrorOutcome> {
  if (outcome.status !== 404 || !("retryAfterSec" in outcome.body)) return outcome;
  return (await secBlockedOutcome(ctx)) ?? outcome;
}

export const EDGAR_SOURCE: SourceInfo = {
  name: "U.S. Securities and Exchange Commission, EDGAR (submissions, XBRL company facts, ticker file)",
  url: "https://www.sec.gov/edgar/sec-api-documentation",
  licence: {
    name: "Public information of the U.S. government; EDGAR filings are public records and may be copied and redistributed",
    url: "https://www.sec.gov/privacy",
    attribution: SEC_ATTRIBUTION,
  },
  notice: "Data as filed with the SEC; values are the filers' own XBRL tags, normalised by this service.",
};

export const TICKERS_PATH = "/files/company_tickers.json";

export function submissionsPath(cik: string): string {
  return `/submissions/CIK${cik}.json`;
}

export function submissionsPagePath(name: string): string {
  return `/submissions/${name}`;
}

export function companyFactsPath(cik: string): string {
  return `/api/xbrl/companyfacts/CIK${cik}.json`;
}

export function filingIndexPath(cik: string, accession: string): string {
  return `/Archives/edgar/data/${Number(cik)}/${accession.replace(/-/g, "")}/index.json`;
}

interface SecFetch<T> {
  body: T;
  url: string;
  recordedSample: boolean;
}

type SecContext = Pick<HandlerContext, "upstreams">;

async function getSec(
  ctx: SecContext,
  spec: UpstreamSpec,
  path: string,
  userAgent: string,
): Promise<UpstreamResponse> {
  return ctx.upstreams.client(spec).get({
    path,
    headers: { "user-agent": userAgent, "accept-encoding": "gzip, deflate", accept: "application/json" },
  });
}

function parseJson<T>(spec: UpstreamSpec, response: UpstreamResponse): T {
  if (response.status !== 200) {
    const detail = response.body.trim().slice(0, 160).replace(/\s+/g, " ");
    throw new UpstreamError(
      spec.name,
      `HTTP ${response.status} from ${response.url}${detail ? `: ${detail}` : ""}`,
      response.status,
    );
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(
      spec.name,
      `answered something other than JSON from ${response.url}`,
      response.status,
    );
  }
}

/** GET one SEC JSON document; `null` when SEC answers 404 and `allowMissing` is set. */
export async function fetchSecJson<T>(
  ctx: SecContext,
  spec: UpstreamSpec,
  path: string,
  userAgent: string,
  allowMissing = false,
): Promise<SecFetch<T> | null> {
  const response = await getSec(ctx, spec, path, userAgent);
  if (allowMissing && response.status === 404) return null;
  return { body: parseJson<T>(spec, response), url: response.url, recordedSample: response.recordedSample };
}
