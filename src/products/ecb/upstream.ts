// The ECB Data Portal API: daily euro foreign exchange reference rates (dataflow EXR), all currencies in
// one CSV request. Rates are published around 16:00 CET on TARGET business days. Documented at
// https://data.ecb.europa.eu/help/api/data (startPeriod, updatedAfter) and /help/api/status-codes: 404 means
// "no results found", which for an `updatedAfter` query means nothing changed since that instant.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";

export const ECB_UPSTREAM: UpstreamSpec = {
  name: "ecb",
  defaultBaseUrl: "https://data-api.ecb.europa.eu",
  // No published rate limit: one request at a time, at least a second apart.
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 60_000,
  retries: 3,
};

/** Daily (D), every currency (empty), against the euro (EUR), spot (SP00), average (A). */
export const EXR_DAILY_PATH = "/service/data/EXR/D..EUR.SP00.A";

/** Days of history requested: about three months of TARGET business days. */
const HISTORY_DAYS = 95;

export const ECB_ATTRIBUTION = "Source: European Central Bank (ECB), Data Portal";

export const ECB_SOURCE: SourceInfo = {
  name: "European Central Bank (ECB) Data Portal: euro foreign exchange reference rates (EXR)",
  url: "https://data.ecb.europa.eu/",
  licence: {
    name: "ECB statistics: free access and reuse, commercial use included, with the source acknowledged",
    url: "https://www.ecb.europa.eu/stats/ecb_statistics/html/index.en.html",
    attribution: ECB_ATTRIBUTION,
  },
  notice: "The euro foreign exchange reference rates are published by the ECB for information purposes only.",
};

export interface ExrFetch {
  csv: string;
  /** The URL the rates were requested from. */
  url: string;
  recordedSample: boolean;
}

/** The first day requested: `days` before `now`, as YYYY-MM-DD (UTC). */
export function startPeriodFor(now: Date, days = HISTORY_DAYS): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** Fetches every currency's daily reference rates from `startPeriod` (YYYY-MM-DD) as the ECB's CSV. */
export async function fetchDailyRates(
  ctx: Pick<HandlerContext, "upstreams">,
  startPeriod: string,
): Promise<ExrFetch> {
  return (await fetchRates(ctx, startPeriod, undefined)) as ExrFetch;
}

/**
 * Only the observations changed after `updatedAfter` (ISO 8601), from `startPeriod`; null when the ECB has
 * nothing newer (it answers 404 "no results found", or 304).
 */
export function fetchRatesUpdatedAfter(
  ctx: Pick<HandlerContext, "upstreams">,
  startPeriod: string,
  updatedAfter: string,
): Promise<ExrFetch | null> {
  return fetchRates(ctx, startPeriod, updatedAfter);
}

async function fetchRates(
  ctx: Pick<HandlerContext, "upstreams">,
  startPeriod: string,
  updatedAfter: string | undefined,
): Promise<ExrFetch | null> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(startPeriod))
    throw new Error(`startPeriod must be YYYY-MM-DD, got "${startPeriod}"`);
  const response = await ctx.upstreams.client(ECB_UPSTREAM).get({
    path: EXR_DAILY_PATH,
    query: { format: "csvdata", startPeriod, updatedAfter },
    headers: { accept: "text/csv" },
  });
  if (updatedAfter !== undefined && (response.status === 404 || response.notModified)) return null;
  if (response.status !== 200) {
    const detail = response.body.trim().slice(0, 200).replace(/\s+/g, " ");
    throw new UpstreamError(
      ECB_UPSTREAM.name,
      `HTTP ${response.status} from ${response.url}${detail ? `: ${detail}` : ""}`,
      response.status,
    );
  }
  return { csv: response.body, url: response.url, recordedSample: response.recordedSample };
}
