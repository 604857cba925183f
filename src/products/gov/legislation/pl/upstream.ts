// Sejm ELI API (Kancelaria Sejmu), https://api.sejm.gov.pl/eli, OpenAPI UI at
// https://api.sejm.gov.pl/eli/openapi/ui. Shapes from the API's
// OpenAPI description and public clients' fixtures: GET /acts/search?title=…&limit=…&offset=… answers
// {count, totalCount, offset, items[]}; GET /acts/{publisher}/{year}/{pos} answers one act with status,
// inForce (IN_FORCE | NOT_IN_FORCE | UNKNOWN), dates, keywords, changeDate; an unknown act is 404. No key, no
// published rate limit: one request at a time, 500 ms apart. Licence: official legal acts are not protected
// by copyright (art. 4 of the Polish Copyright Act); the metadata is public information (ISAP, Kancelaria
// Sejmu), reused with attribution.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const SEJM_ELI_SPEC: UpstreamSpec = {
  name: "gov-pl-sejm-eli",
  defaultBaseUrl: "https://api.sejm.gov.pl/eli",
  maxConcurrent: 1,
  minIntervalMs: 500,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 20_000,
};

export const SEARCH_PATH = "/acts/search";
const SEARCH_LIMIT = 20;

interface Fetched<T> {
  json: T;
  url: string;
  recordedSample: boolean;
}

function parse<T>(client: UpstreamClient, status: number, body: string, url: string): T {
  if (status >= 400) throw new UpstreamError(client.name, `HTTP ${status} from ${url}`, status);
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new UpstreamError(client.name, `not JSON from ${url} (maintenance page?)`, status);
  }
}

export async function searchActs<T>(client: UpstreamClient, title: string): Promise<Fetched<T>> {
  const response = await client.get({
    path: SEARCH_PATH,
    query: { title, limit: SEARCH_LIMIT, offset: 0 },
    headers: { accept: "application/json" },
  });
  return {
    json: parse<T>(client, response.status, response.body, response.url),
    url: response.url,
    recordedSample: response.recordedSample,
  };
}

/** One act; undefined when the API says it does not exist (404). */
export async function fetchAct<T>(
  client: UpstreamClient,
  act: { publisher: string; year: number; pos: number },
): Promise<Fetched<T> | undefined> {
  const response = await client.get({
    path: `/acts/${act.publisher}/${act.year}/${act.pos}`,
    headers: { accept: "application/json" },
  });
  if (response.status === 404) return undefined;
  return {
    json: parse<T>(client, response.status, response.body, response.url),
    url: response.url,
    recordedSample: response.recordedSample,
  };
}
