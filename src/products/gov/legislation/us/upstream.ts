// eCFR API (Office of the Federal Register / GPO), https://www.ecfr.gov/developers/documentation/api/v1.
// Sources for the shapes: the eCFR developer documentation (search, versioner and admin services) and
// public eCFR clients whose types were pinned against the live API
// (titles.json, ancestry {ancestors[]}, versions {content_versions[]}, search results with hierarchy,
// hierarchy_headings, headings, meta.total_count). No key; no published rate limit (clients report about
// 100 requests a minute before throttling), so one request at a time, 600 ms apart. Full XML must be asked
// as .xml (JSON gives 406); we read only JSON endpoints. Licence: US government work, public domain; the
// eCFR is an editorial compilation, NOT an official legal edition of the CFR (stated in every answer).
import type { UpstreamClient, UpstreamResponse, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const ECFR_SPEC: UpstreamSpec = {
  name: "gov-us-ecfr",
  defaultBaseUrl: "https://www.ecfr.gov",
  maxConcurrent: 1,
  minIntervalMs: 600,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 20_000,
};

const SEARCH_PATH = "/api/search/v1/results";
export const TITLES_PATH = "/api/versioner/v1/titles.json";
const AGENCIES_PATH = "/api/admin/v1/agencies.json";
const SEARCH_PAGE_SIZE = 20;

interface Fetched<T> {
  json: T;
  url: string;
  recordedSample: boolean;
}

/** A JSON answer, or an UpstreamError for anything else (5xx, a maintenance page served as HTML). */
function readJson<T>(client: UpstreamClient, response: UpstreamResponse): T {
  if (response.status >= 400) {
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(
      client.name,
      `not JSON from ${response.url} (maintenance page?)`,
      response.status,
    );
  }
}

async function getJson<T>(
  client: UpstreamClient,
  path: string,
  query?: Record<string, string | number | undefined>,
): Promise<Fetched<T>> {
  const response = await client.get({ path, query, headers: { accept: "application/json" } });
  return { json: readJson<T>(client, response), url: response.url, recordedSample: response.recordedSample };
}

export const searchSections = <T>(client: UpstreamClient, query: string) =>
  getJson<T>(client, SEARCH_PATH, { query, per_page: SEARCH_PAGE_SIZE, page: 1 });

export const fetchTitles = <T>(client: UpstreamClient) => getJson<T>(client, TITLES_PATH);

export const fetchAgencies = <T>(client: UpstreamClient) => getJson<T>(client, AGENCIES_PATH);

/** The section's ancestors (title → section); undefined when eCFR says the section does not exist (404). */
export async function fetchAncestry<T>(
  client: UpstreamClient,
  date: string,
  title: string,
  part: string,
  section: string,
): Promise<Fetched<T> | undefined> {
  const response = await client.get({
    path: `/api/versioner/v1/ancestry/${date}/title-${title}.json`,
    query: { part, section },
    headers: { accept: "application/json" },
  });
  if (response.status === 404) return undefined;
  return { json: readJson<T>(client, response), url: response.url, recordedSample: response.recordedSample };
}

export const fetchVersions = <T>(client: UpstreamClient, title: string, part: string, section: string) =>
  getJson<T>(client, `/api/versioner/v1/versions/title-${title}.json`, { part, section });
