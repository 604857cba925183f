// The FRED API (St. Louis Fed): series metadata, observations, tags, and a series' release and its sources
// (the owners named for "copyrighted: citation required" series), as JSON. Documented at
// https://fred.stlouisfed.org/docs/api/fred/; response shapes checked against the public test fixtures of the
// fredr client (sboysel/fredr, tests/testthat/api.stlouisfed.org/). Limit: 120 requests a minute per key.
// Terms: see terms.ts. Every request carries the API key in the query, so URLs and error messages are
// scrubbed of it before they are stored or shown.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import type { FredSettings } from "./settings.ts";
import { FRED_API_TERMS_URL, FRED_LEGAL_TERMS_URL, fredLiveProblem } from "./terms.ts";

export const FRED_UPSTREAM: UpstreamSpec = {
  name: "fred",
  defaultBaseUrl: "https://api.stlouisfed.org",
  // Published limit: 120 requests a minute per key. One at a time, at least 0.55 s apart, stays under it.
  maxConcurrent: 1,
  minIntervalMs: 550,
  timeoutMs: 30_000,
  retries: 3,
};

export const FRED_TERMS_URL = FRED_LEGAL_TERMS_URL;

/** The sentence FRED's API terms ask every application using the API to display. */
export const FRED_ENDORSEMENT =
  "This product uses the FRED® API but is not endorsed or certified by the Federal Reserve Bank of St. Louis.";

export const FRED_SOURCE: SourceInfo = {
  name: "FRED®, Federal Reserve Bank of St. Louis: economic time series",
  url: "https://fred.stlouisfed.org/",
  licence: {
    name:
      "St. Louis Fed Terms of Use (redistribution of stored FRED content only with its permission) and FRED API " +
      `Terms of Use (${FRED_API_TERMS_URL}); each series belongs to its original source and keeps that source's terms`,
    url: FRED_TERMS_URL,
    attribution: "Source: Federal Reserve Bank of St. Louis, FRED",
  },
  notice: FRED_ENDORSEMENT,
};

/** FRED answered with its own error document (`error_code`, `error_message`). */
export class FredApiError extends UpstreamError {
  readonly fredMessage: string;
  constructor(status: number, fredMessage: string, url: string) {
    super(FRED_UPSTREAM.name, `HTTP ${status} from ${url}: ${fredMessage}`, status, true);
    this.fredMessage = fredMessage;
  }

  /** FRED's answer for an id it does not know: "Bad Request.  The series does not exist." */
  get seriesDoesNotExist(): boolean {
    return /series does not exist/i.test(this.fredMessage);
  }

  /**
   * FRED refused the series id itself (400: unknown, or "Series IDs should be 25 or less alphanumeric
   * characters"), so asking again cannot succeed. A 400 about the API key is a configuration fault instead.
   */
  get refusesSeriesId(): boolean {
    return this.seriesDoesNotExist || (this.status === 400 && !/api_key/i.test(this.fredMessage));
  }
}

/** Live mode without FRED_REDISTRIBUTION=permitted or FRED_API_KEY: nothing is fetched. */
export class FredNotConfiguredError extends Error {
  constructor(settings: Pick<FredSettings, "apiKey" | "redistributionPermitted">) {
    const problem = fredLiveProblem(settings);
    super(problem ? `${problem.reason} ${problem.fix}` : "FRED is configured.");
  }
}

interface FredJson<T> {
  json: T;
  /** The request URL without the API key. */
  url: string;
  recordedSample: boolean;
}

type FredContext = Pick<HandlerContext, "upstreams">;

/** True when this service can fetch from FRED: replay mode, or live with a key and redistribution permitted. */
export function canFetchFred(ctx: FredContext, settings: FredSettings): boolean {
  return ctx.upstreams.mode === "replay" || fredLiveProblem(settings) === undefined;
}

export function withoutApiKey(text: string, apiKey: string | undefined): string {
  const scrubbed = text.replace(/([?&])api_key=[^&\s#]*&?/g, (_m, lead: string) => lead).replace(/[?&]$/, "");
  return apiKey ? scrubbed.replaceAll(apiKey, "[FRED_API_KEY]") : scrubbed;
}

async function fredGet<T>(
  ctx: FredContext,
  settings: FredSettings,
  path: string,
  query: Record<string, string | undefined>,
): Promise<FredJson<T>> {
  if (!canFetchFred(ctx, settings)) throw new FredNotConfiguredError(settings);
  const client = ctx.upstreams.client(FRED_UPSTREAM);
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      path,
      // Without file_type=json FRED answers XML. In replay mode no key is needed.
      query: { ...query, api_key: settings.apiKey, file_type: "json" },
      headers: { accept: "application/json" },
    });
  } catch (error) {
    if (error instanceof UpstreamError) {
      throw new UpstreamError(
        FRED_UPSTREAM.name,
        withoutApiKey(error.message.replace(/^fred: /, ""), settings.apiKey),
        error.status,
        error.final,
      );
    }
    throw new Error(withoutApiKey(String(error), settings.apiKey));
  }
  const url = withoutApiKey(response.url, settings.apiKey);
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    const detail = response.body.trim().slice(0, 120).replace(/\s+/g, " ");
    throw new UpstreamError(FRED_UPSTREAM.name, `HTTP ${response.status} from ${url} is not JSON: ${detail}`);
  }
  const fredError = json as { error_code?: unknown; error_message?: unknown };
  if (response.status !== 200 || typeof fredError.error_message === "string") {
    const message =
      typeof fredError.error_message === "string" ? fredError.error_message : `HTTP ${response.status}`;
    throw new FredApiError(response.status, withoutApiKey(message, settings.apiKey), url);
  }
  return { json: json as T, url, recordedSample: response.recordedSample };
}

export function fetchSeriesMetadata(ctx: FredContext, settings: FredSettings, seriesId: string) {
  return fredGet<unknown>(ctx, settings, "/fred/series", { series_id: seriesId });
}

export function fetchSeriesTags(ctx: FredContext, settings: FredSettings, seriesId: string) {
  return fredGet<unknown>(ctx, settings, "/fred/series/tags", { series_id: seriesId });
}

/** The release a series belongs to (`releases[0]`). */
export function fetchSeriesRelease(ctx: FredContext, settings: FredSettings, seriesId: string) {
  return fredGet<unknown>(ctx, settings, "/fred/series/release", { series_id: seriesId });
}

/** The sources (owners) of a release: `sources[].name` and `.link`. */
export function fetchReleaseSources(ctx: FredContext, settings: FredSettings, releaseId: number) {
  return fredGet<unknown>(ctx, settings, "/fred/release/sources", { release_id: String(releaseId) });
}

/** Observations in date order from `observationStart` (YYYY-MM-DD), or the whole history. */
export function fetchObservations(
  ctx: FredContext,
  settings: FredSettings,
  seriesId: string,
  observationStart: string | undefined,
) {
  return fredGet<unknown>(ctx, settings, "/fred/series/observations", {
    series_id: seriesId,
    observation_start: observationStart,
    sort_order: "asc",
  });
}

/** The first observation date kept: `historyYears` before `now` (January 1st of that year), or none. */
export function observationStartFor(now: Date, historyYears: number): string | undefined {
  if (historyYears === 0) return undefined;
  return `${now.getUTCFullYear() - historyYears}-01-01`;
}
