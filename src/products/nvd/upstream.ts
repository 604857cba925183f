// NVD CVE API 2.0 (records by id or by last-modified window, paged) and CISA's known-exploited catalogue
// (one JSON file). NVD's published limit (https://nvd.nist.gov/developers/start-here, 2026): 10 requests per
// rolling minute without an API key, 100 with one; beyond that it answers 403 (not 429). The window is booked
// cluster-wide in the store (src/budgets/booking.ts), with the spacing below on top; a refusal pauses every
// node's requests to NVD (the client's throttle policy).
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../upstream/client.ts";
import type { NvdSettings } from "./settings.ts";

export const NVD_CVES_PATH = "/rest/json/cves/2.0";
export const KEV_FEED_PATH = "/sites/default/files/feeds/known_exploited_vulnerabilities.json";
/** NVD's largest (and default) page. */
export const NVD_MAX_PAGE_SIZE = 2000;

/** The notice NVD's terms of use require of every product built on its API. */
export const NVD_NOTICE =
  "This product uses data from the NVD API but is not endorsed or certified by the NVD.";
export const KEV_ATTRIBUTION =
  "Known-exploited status from CISA's Known Exploited Vulnerabilities Catalog (public domain).";

export const NVD_SOURCE: SourceInfo = {
  name: "NIST National Vulnerability Database (NVD) CVE API 2.0, joined with CISA's Known Exploited Vulnerabilities catalogue",
  url: "https://nvd.nist.gov/developers/vulnerabilities",
  licence: {
    name: "Public domain (US government works); NVD terms of use apply",
    url: "https://nvd.nist.gov/developers/terms-of-use",
    attribution: NVD_NOTICE,
  },
  notice: `${NVD_NOTICE} ${KEV_ATTRIBUTION}`,
};

const NVD_ROLLING_WINDOW_MS = 60_000;

/** Requests per rolling minute NVD allows: 10 without a key, 100 with one. */
export function nvdPerMinute(settings: Pick<NvdSettings, "apiKey">): number {
  return settings.apiKey ? 100 : 10;
}

/** Requests start at least this far apart: a minute over the allowance, plus 8 % slack (6.5 s / 0.65 s). */
export function nvdMinIntervalMs(settings: Pick<NvdSettings, "apiKey">): number {
  return Math.ceil(((NVD_ROLLING_WINDOW_MS / nvdPerMinute(settings)) * 1.08) / 50) * 50;
}

/**
 * The pause after NVD refuses a request as over its limit (403, or 429; no Retry-After): a refusal means the
 * rolling minute is full (perhaps with others' requests from this IP), and only a whole window surely empties it.
 */
export const NVD_REFUSAL_PAUSE_MS = NVD_ROLLING_WINDOW_MS;

export function nvdUpstream(settings: Pick<NvdSettings, "apiKey">): UpstreamSpec {
  return {
    name: "nvd",
    defaultBaseUrl: "https://services.nvd.nist.gov",
    maxConcurrent: 1,
    minIntervalMs: nvdMinIntervalMs(settings),
    limits: { perMinute: nvdPerMinute(settings) },
    firstBackoffMs: nvdMinIntervalMs(settings),
    // A 2000-record page takes NVD a while to assemble.
    timeoutMs: 120_000,
    retries: 2,
    maxRetryAfterMs: 60_000,
    throttle: { statuses: [403, 429], defaultPauseMs: NVD_REFUSAL_PAUSE_MS },
  };
}

export const KEV_UPSTREAM: UpstreamSpec = {
  name: "cisa-kev",
  defaultBaseUrl: "https://www.cisa.gov",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 60_000,
  retries: 3,
};

interface NvdPageRequest {
  /** A last-modified window (at most 120 days) … */
  window?: { start: Date; end: Date };
  /** … or one record. */
  cveId?: string;
  startIndex?: number;
  resultsPerPage?: number;
  /** Told of each rate-limit refusal the client pauses for and retries. */
  onRefused?: (status: number) => void;
}

interface NvdFetch {
  /** The parsed JSON answer; its shape is checked by the normaliser. */
  json: unknown;
  url: string;
  recordedSample: boolean;
}

function describeBody(body: string): string {
  return body.trim().slice(0, 200).replace(/\s+/g, " ");
}

function parseJson(upstream: string, response: UpstreamResponse): unknown {
  try {
    return JSON.parse(response.body);
  } catch {
    throw new UpstreamError(
      upstream,
      `answer from ${response.url} is not JSON: starts ${JSON.stringify(describeBody(response.body).slice(0, 80))}`,
      response.status,
    );
  }
}

export async function fetchCvePage(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: NvdSettings,
  request: NvdPageRequest,
): Promise<NvdFetch> {
  const query: Record<string, string | number | undefined> = {};
  if (request.cveId) query.cveId = request.cveId;
  if (request.window) {
    query.lastModStartDate = request.window.start.toISOString();
    query.lastModEndDate = request.window.end.toISOString();
  }
  if (request.startIndex !== undefined) query.startIndex = request.startIndex;
  if (request.resultsPerPage !== undefined) query.resultsPerPage = request.resultsPerPage;
  // A rate-limit refusal never comes back as an answer: the client pauses and retries it, then throws
  // UpstreamBudgetError.
  const response = await ctx.upstreams.client(nvdUpstream(settings)).get({
    path: NVD_CVES_PATH,
    query,
    headers: { accept: "application/json", ...(settings.apiKey ? { apiKey: settings.apiKey } : {}) },
    ...(request.onRefused ? { onRefused: request.onRefused } : {}),
  });
  if (response.status !== 200) {
    const message = response.headers.get("message") ?? describeBody(response.body);
    throw new UpstreamError(
      "nvd",
      `HTTP ${response.status} from ${response.url}${message ? `: ${message}` : ""}`,
      response.status,
    );
  }
  return { json: parseJson("nvd", response), url: response.url, recordedSample: response.recordedSample };
}

type KevFetch =
  | { notModified: true }
  | {
      notModified: false;
      json: unknown;
      url: string;
      etag: string | null;
      lastModified: string | null;
      recordedSample: boolean;
    };

/** The whole catalogue, or `notModified` when the validators of the last fetch still hold. */
export async function fetchKevFeed(
  ctx: Pick<HandlerContext, "upstreams">,
  validators: { etag: string | null; lastModified: string | null },
): Promise<KevFetch> {
  const response = await ctx.upstreams.client(KEV_UPSTREAM).get({
    path: KEV_FEED_PATH,
    headers: { accept: "application/json" },
    etag: validators.etag,
    lastModified: validators.lastModified,
  });
  if (response.notModified) return { notModified: true };
  if (response.status !== 200) {
    throw new UpstreamError(
      "cisa-kev",
      `HTTP ${response.status} from ${response.url}: ${describeBody(response.body)}`,
      response.status,
    );
  }
  return {
    notModified: false,
    json: parseJson("cisa-kev", response),
    url: response.url,
    etag: response.headers.get("etag"),
    lastModified: response.headers.get("last-modified"),
    recordedSample: response.recordedSample,
  };
}
