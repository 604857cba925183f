// openFDA drug label API: GET https://api.fda.gov/drug/label.json?search=<Lucene query>&limit=<n>&sort=...
// Auth: optional api_key. Limits: 240 requests a minute; 1,000 a day per IP without a key, 120,000 a day per
// key. No match is HTTP 404 {"error":{"code":"NOT_FOUND","message":"No matches found!"}} (an empty result, not
// a failure). A search openFDA will not run is HTTP 400 {"error":{"code":"BAD_REQUEST","message":"Search not
// supported: <search, JS-escaped>"}} (FDA/openfda api/faers/api.js ApiError and elasticsearch_query.js
// BuildQuery, commit 2c152208): the buyer's query, never openFDA being down. Every label section is an array of
// strings; the `openfda` block is missing on many labels.
// Sources: open.fda.gov/apis/drug/label and /apis/authentication (limits); FDA/openfda's server source (the
// error bodies); no public capture of a label page was found, so its recording is written from the documented
// shape. Licence: public domain / CC0 (open.fda.gov/license); openFDA's disclaimer is passed through to buyers.
import type { HandlerContext, SourceInfo } from "../../catalog/product.ts";
import { UpstreamError, type UpstreamSpec } from "../../upstream/client.ts";
import { type LabelPage, LabelPageError, normaliseLabelPage } from "./normalise.ts";
import type { OpenFdaSettings } from "./settings.ts";

export const LABEL_PATH = "/drug/label.json";
const RESULTS_PER_SEARCH = 10;

export const OPENFDA_DISCLAIMER =
  "Do not rely on openFDA to make decisions regarding medical care. While we make every effort to ensure " +
  "that data is accurate, you should assume all results are unvalidated. We may limit or otherwise restrict " +
  "your access to the API in line with our Terms of Service.";

/**
 * 240 a minute is one request every 250 ms; a buyer waits for a live search, so each try is short: two tries
 * of 3.5 s and the backoff between them stay within about 8 s.
 */
export const OPENFDA_UPSTREAM: UpstreamSpec = {
  name: "openfda",
  defaultBaseUrl: "https://api.fda.gov",
  maxConcurrent: 2,
  minIntervalMs: 300,
  timeoutMs: 3500,
  retries: 1,
  maxRetryAfterMs: 1000,
};

export const OPENFDA_SOURCE: SourceInfo = {
  name: "openFDA drug product labeling (SPL) API, US Food and Drug Administration",
  url: "https://open.fda.gov/apis/drug/label/",
  licence: {
    name: "Public domain / CC0 1.0 (openFDA)",
    url: "https://open.fda.gov/license/",
    attribution: "Source: openFDA, US Food and Drug Administration",
  },
  notice: OPENFDA_DISCLAIMER,
};

export class OpenFdaUnavailable extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

interface FetchedSearch {
  /** null when openFDA answered 404 NOT_FOUND (no label matches) or refused the search (400). */
  page: LabelPage | null;
  /** openFDA's message when it refused the search as not supported (HTTP 400); null otherwise. */
  refused: string | null;
  /** The URL searched, without the api_key. */
  url: string;
  recordedSample: boolean;
}

function withoutKey(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete("api_key");
  return parsed.toString();
}

/** openFDA's error message of a 400 (`{"error":{"code","message"}}`), else the start of the body. */
export function refusalOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string" && message.trim() !== "") return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.trim().slice(0, 300) || "HTTP 400";
}

export async function searchLabels(
  ctx: Pick<HandlerContext, "upstreams">,
  settings: Pick<OpenFdaSettings, "apiKey">,
  search: string,
): Promise<FetchedSearch> {
  const client = ctx.upstreams.client(OPENFDA_UPSTREAM);
  let response: Awaited<ReturnType<typeof client.get>>;
  try {
    response = await client.get({
      path: LABEL_PATH,
      query: {
        search,
        limit: RESULTS_PER_SEARCH,
        sort: "effective_time:desc",
        ...(settings.apiKey ? { api_key: settings.apiKey } : {}),
      },
      headers: { accept: "application/json" },
    });
  } catch (error) {
    if (error instanceof UpstreamError)
      throw new OpenFdaUnavailable(error.message.replace(/api_key=[^&\s)]+/g, "api_key=…"), error.status);
    throw error;
  }
  const url = withoutKey(response.url);
  const { recordedSample } = response;
  if (response.status === 404 && /"NOT_FOUND"/.test(response.body))
    return { page: null, refused: null, url, recordedSample };
  if (response.status === 400) return { page: null, refused: refusalOf(response.body), url, recordedSample };
  if (response.status !== 200) {
    const detail = response.body.trim().slice(0, 200).replace(/\s+/g, " ");
    throw new OpenFdaUnavailable(
      `openfda: HTTP ${response.status} from ${url}${detail ? `: ${detail}` : ""}`,
      response.status,
    );
  }
  try {
    return { page: normaliseLabelPage(response.body), refused: null, url, recordedSample };
  } catch (error) {
    if (error instanceof LabelPageError) throw new OpenFdaUnavailable(`openfda: ${error.message}`, 200);
    throw error;
  }
}
