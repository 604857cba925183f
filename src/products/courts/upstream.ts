// CourtListener REST API v4 opinion search (https://www.courtlistener.com/help/api/rest/v4/search/).
// Throttle (Free Law Project's cl/settings/third_party/rest_framework.py, Django REST framework's sliding
// windows): since April 2026 5 a minute, 50 an hour, 125 a day per user, anonymous callers 100 a day per IP.
// A throttled request gets 429, Retry-After in seconds and {"detail": "Request was throttled. Rate limit
// exceeded: 5/min. Expected available in N seconds."}. The windows are booked cluster-wide in the store
// (src/budgets/booking.ts) so CourtListener is not asked when they are spent; a 429 pauses every node.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamBudgetError, UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { normaliseSearchPage, type SearchPage, SearchPageError } from "./normalise.ts";
import type { CourtsSettings } from "./settings.ts";

export const SEARCH_PATH = "/api/rest/v4/search/";
export const COURTLISTENER_ATTRIBUTION = "Source: CourtListener, Free Law Project (courtlistener.com)";

/** When CourtListener says 429 without a usable Retry-After, searches pause this long. */
const DEFAULT_THROTTLE_SEC = 300;

/** A buyer waits this long at most for a place in CourtListener's windows (and a short Retry-After). */
const BUYER_WAIT_MS = 15_000;
/** The warmer waits out a full minute window inside its run; longer waits become a resume job. */
const WARMER_WAIT_MS = 65_000;

/**
 * One request at a time, `minIntervalMs` apart, within the account's windows. A 429 pauses every search on
 * every node for its Retry-After; one longer than the caller's wait is not waited out.
 */
export function courtListenerSpec(
  settings: Pick<CourtsSettings, "minIntervalMs" | "limits" | "warmShare">,
): UpstreamSpec {
  return {
    name: "courtlistener",
    defaultBaseUrl: "https://www.courtlistener.com",
    maxConcurrent: 1,
    minIntervalMs: settings.minIntervalMs,
    limits: settings.limits,
    backgroundShare: settings.warmShare,
    throttle: { defaultPauseMs: DEFAULT_THROTTLE_SEC * 1000 },
    timeoutMs: 20_000,
    retries: 1,
    maxRetryAfterMs: WARMER_WAIT_MS,
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

/**
 * CourtListener did not give a usable answer; `retryAfterSec` is set when it asked us to pause or when the
 * search budget is spent (`budgetSpent`: nothing was sent).
 */
export class CourtListenerUnavailable extends Error {
  readonly status: number | undefined;
  readonly retryAfterSec: number | undefined;
  /** The failure came from a recorded sample (UPSTREAMS=replay), not from CourtListener. */
  readonly recordedSample: boolean;
  readonly budgetSpent: boolean;
  constructor(
    message: string,
    status?: number,
    retryAfterSec?: number,
    recordedSample = false,
    budgetSpent = false,
  ) {
    super(message);
    this.status = status;
    this.retryAfterSec = retryAfterSec;
    this.recordedSample = recordedSample;
    this.budgetSpent = budgetSpent;
  }

  /** CourtListener is limiting us: a 429, a pause it imposed, or our windows spent. */
  get throttled(): boolean {
    return this.status === 429 || this.budgetSpent;
  }
}

export interface SearchMode {
  /** The warmer: it may use only its share of each window and waits longer. */
  background?: boolean;
}

interface FetchedSearch {
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

/** One page (20 opinion clusters, best match first) for a CourtListener query string. */
export async function searchOpinions(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: Pick<CourtsSettings, "token" | "minIntervalMs" | "limits" | "warmShare">,
  upstreamQuery: string,
  mode: SearchMode = {},
): Promise<FetchedSearch> {
  const client = ctx.upstreams.client(courtListenerSpec(settings));
  const request = {
    background: mode.background === true,
    maxWaitMs: mode.background ? WARMER_WAIT_MS : BUYER_WAIT_MS,
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
    if (error instanceof UpstreamBudgetError) {
      // Without a status nothing was sent: the windows were spent or an earlier pause still holds.
      const notSent = error.status === undefined;
      throw new CourtListenerUnavailable(error.message, error.status, error.retryAfterSec, false, notSent);
    }
    if (error instanceof UpstreamError) {
      throw new CourtListenerUnavailable(error.message, error.status);
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
