// CourtListener REST API v4 opinion search. Anonymous reads are throttled at about 100 a day per IP;
// with a token, 5,000 an hour. A throttled request gets 429 with Retry-After (often most of a day).
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { normaliseSearchPage, type SearchPage, SearchPageError } from "./normalise.ts";
import type { CourtsSettings } from "./settings.ts";

export const SEARCH_PATH = "/api/rest/v4/search/";
export const COURTLISTENER_ATTRIBUTION = "Source: CourtListener, Free Law Project (courtlistener.com)";

/** When CourtListener says 429 without a usable Retry-After, searches pause this long. */
export const DEFAULT_THROTTLE_SEC = 300;

/**
 * One request at a time, `minIntervalMs` apart. A buyer waits for a live search, so a Retry-After longer
 * than 15 s is not waited out: searches pause and the buyer is not charged.
 */
export function courtListenerSpec(settings: Pick<CourtsSettings, "minIntervalMs">): UpstreamSpec {
  return {
    name: "courtlistener",
    defaultBaseUrl: "https://www.courtlistener.com",
    maxConcurrent: 1,
    minIntervalMs: settings.minIntervalMs,
    timeoutMs: 20_000,
    retries: 1,
    maxRetryAfterMs: 15_000,
  };
}

export const COURTLISTENER_SOURCE: SourceInfo = {
  name: "CourtListener (Free Law Project): US case-law opinion search, REST API v4",
  url: "https://www.courtlistener.com/",
  licence: {
    name: "Public Domain Mark 1.0 (court opinions and their metadata)",
    url: "https://creativecommons.org/publicdomain/mark/1.0/",
    attribution: COURTLISTENER_ATTRIBUTION,
  },
  notice:
    "Search results from CourtListener, a project of Free Law Project. Court opinions are public records; " +
    "this is not legal advice.",
};

/** CourtListener did not give a usable answer; `retryAfterSec` is set when it asked us to pause. */
export class CourtListenerUnavailable extends Error {
  readonly status: number | undefined;
  readonly retryAfterSec: number | undefined;
  /** The failure came from a recorded sample (UPSTREAMS=replay), not from CourtListener. */
  readonly recordedSample: boolean;
  constructor(message: string, status?: number, retryAfterSec?: number, recordedSample = false) {
    super(message);
    this.status = status;
    this.retryAfterSec = retryAfterSec;
    this.recordedSample = recordedSample;
  }
}

export interface FetchedSearch {
  page: SearchPage;
  /** The URL searched (never carries the token). */
  url: string;
  recordedSample: boolean;
}

function retryAfterSecOf(header: string | null): number {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Math.max(1, Number(value));
  const date = Date.parse(value);
  if (!Number.isNaN(date)) return Math.max(1, Math.ceil((date - Date.now()) / 1000));
  return DEFAULT_THROTTLE_SEC;
}

/** The polite client gives up on a long Retry-After with "asked to retry after N s"; keep N. */
function retryAfterSecFromError(error: UpstreamError): number {
  const seconds = error.message.match(/asked to retry after (\d+) s/)?.[1];
  return seconds ? Math.max(1, Number(seconds)) : DEFAULT_THROTTLE_SEC;
}

/** One page (20 opinion clusters, best match first) for a CourtListener query string. */
export async function searchOpinions(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: Pick<CourtsSettings, "token" | "minIntervalMs">,
  upstreamQuery: string,
): Promise<FetchedSearch> {
  const client = ctx.upstreams.client(courtListenerSpec(settings));
  const request = {
    path: SEARCH_PATH,
    query: { type: "o", q: upstreamQuery },
    headers: {
      accept: "application/json",
      ...(settings.token ? { authorization: `Token ${settings.token}` } : {}),
    },
  };
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get(request);
  } catch (error) {
    if (error instanceof UpstreamError) {
      const throttled = error.status === 429;
      throw new CourtListenerUnavailable(
        error.message,
        error.status,
        throttled ? retryAfterSecFromError(error) : undefined,
      );
    }
    throw new CourtListenerUnavailable(`courtlistener: ${String(error)}`);
  }
  const { recordedSample, url } = response;
  // The live client retries 429s itself; a recorded 429 (UPSTREAMS=replay) arrives here as it was recorded.
  if (response.status === 429) {
    throw new CourtListenerUnavailable(
      `courtlistener: HTTP 429 from ${url}`,
      429,
      retryAfterSecOf(response.headers.get("retry-after")),
      recordedSample,
    );
  }
  if (response.status !== 200) {
    const detail = response.body.trim().slice(0, 200).replace(/\s+/g, " ");
    throw new CourtListenerUnavailable(
      `courtlistener: HTTP ${response.status} from ${url}${detail ? `: ${detail}` : ""}`,
      response.status,
      undefined,
      recordedSample,
    );
  }
  try {
    return { page: normaliseSearchPage(response.body), url, recordedSample };
  } catch (error) {
    if (error instanceof SearchPageError)
      throw new CourtListenerUnavailable(`courtlistener: ${error.message}`, 200, undefined, recordedSample);
    throw error;
  }
}
