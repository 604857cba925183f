// Federal Register of Legislation (Australian Government, Office of Parliamentary Counsel): the OData 4 API the
// legislation.gov.au site itself calls, https://api.prod.legislation.gov.au/v1 (EDM schema at /v1/$metadata).
// No official developer documentation; shapes from a 2026 third-party "verified
// reference" and several clients, among them an F# client's Title fixture:
// - Title search: GET /Titles?$filter=contains(tolower(name),'privacy') and …&$select=…&$top=20&$skip=0&
//   $count=true → {"@odata.count": n, "value": [Title…]}. `$top` is capped at 100; without it the server pages at
//   510 rows and its @odata.nextLink DROPS the $filter: we never follow nextLink, we ask one explicit page.
//   $orderby=makingDate answers 500 and $search is ignored: neither is used. Name filters also match former
//   names, so a hit's current name may not contain the words.
// - One title: GET /Titles('C2004A00109') → one Title (id, name, makingDate, collection, isPrincipal,
//   isInForce, status InForce|Ceased|Repealed|NeverEffective, asMadeRegisteredAt, optionalSeriesNumber, year,
//   number, statusHistory[{status, start, reasons}]); an unknown id is 404.
// No key; no limit observed (bursts of 20 were fine): one request at a time, 500 ms apart, with our User-Agent.
// Licence: legislation.gov.au content is published under CC BY 4.0 (© Commonwealth of Australia).
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const FRL_SPEC: UpstreamSpec = {
  name: "gov-au-frl",
  defaultBaseUrl: "https://api.prod.legislation.gov.au/v1",
  maxConcurrent: 1,
  minIntervalMs: 500,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 30_000,
};

const SEARCH_TOP = 20;
export const TITLE_FIELDS =
  "id,name,collection,status,isInForce,isPrincipal,year,number,makingDate,optionalSeriesNumber,asMadeRegisteredAt";

interface Fetched {
  json: unknown;
  url: string;
  recordedSample: boolean;
}

function parse(client: UpstreamClient, status: number, body: string, url: string): unknown {
  if (status >= 400) throw new UpstreamError(client.name, `HTTP ${status} from ${url}`, status);
  try {
    return JSON.parse(body);
  } catch {
    throw new UpstreamError(client.name, `not JSON from ${url} (maintenance page?)`, status);
  }
}

/** An OData string literal: single quotes doubled. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Every word must be in the (lower-cased) name. */
export function titleFilter(words: string[]): string {
  return words.map((word) => `contains(tolower(name),${literal(word)})`).join(" and ");
}

export async function searchTitles(client: UpstreamClient, words: string[]): Promise<Fetched> {
  const response = await client.get({
    path: "/Titles",
    query: { $filter: titleFilter(words), $select: TITLE_FIELDS, $top: SEARCH_TOP, $skip: 0, $count: "true" },
    headers: { accept: "application/json" },
  });
  return {
    json: parse(client, response.status, response.body, response.url),
    url: response.url,
    recordedSample: response.recordedSample,
  };
}

/** One title record; undefined when the register says it does not exist (404). */
export async function fetchTitle(client: UpstreamClient, id: string): Promise<Fetched | undefined> {
  const response = await client.get({
    path: `/Titles(${literal(id)})`,
    headers: { accept: "application/json" },
  });
  if (response.status === 404) return undefined;
  return {
    json: parse(client, response.status, response.body, response.url),
    url: response.url,
    recordedSample: response.recordedSample,
  };
}
