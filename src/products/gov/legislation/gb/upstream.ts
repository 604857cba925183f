// legislation.gov.uk (The National Archives). Official documentation: github.com/legislation/data-documentation
// (api.md, uris.md, xml.md); shapes checked against public clients' fixtures
// (jurisdatum/lgu-mcp-ts parser tests, UKGovernmentBEIS/beis-orp-application CLML mocks).
// - Title search: GET /search/data.feed?title=…&results-count=100 (Atom; entries with
//   <id>http://www.legislation.gov.uk/id/{type}/{year}/{number}</id>, <title> (plain, or an XHTML div with one
//   span per language for bilingual items), ukm:DocumentMainType, ukm:Year, ukm:Number, ukm:CreationDate,
//   <summary>). Feed entries carry no in-force or repeal status. Checked against a real feed captured in
//   UKGovernmentBEIS/beis-orp-application test/mocks/tnaSearchMock.ts (commit cbf2fce): its
//   openSearch:totalResults reads 20 (the page) for 896 matches, which only the leg:facets counts give; feeds
//   are ordered by modification date (api/search.md), so the route ranks a 100-entry page by title match.
// - Pre-1963 primary legislation has regnal-year ids (ukpga/Geo5/4-5/1, model/uris.md); a calendar-year URI of
//   that era redirects (301) to the regnal one, or answers 300 Multiple Choices with an XHTML list of the acts
//   it could mean (ukpga/1914/1: two acts of 1914, real answer captured in jurisdatum/lgu-mcp-ts
//   src/test/api/disambiguation.test.ts), which the job keeps.
// - One act: GET /{type}/{year}/{number}/contents/data.xml (CLML table of contents: the whole ukm:Metadata and
//   the root's RestrictStartDate / RestrictEndDate / RestrictExtent / Status, without the body the docs ask us not
//   to fetch). An unknown act is 404. Without a version the current revised text is served, or the original
//   (DocumentStatus "final", no in-force data) when no revised version exists.
// - New items: GET /new/data.feed (Atom), followed by the warmer to cache new acts before anyone asks.
// Fair use: at most 3,000 requests per 5 minutes per user across all IPs, and a User-Agent with contact
// details (the service's USER_AGENT). We stay far below: one request every 200 ms at most, two at a time.
// Licence: Open Government Licence v3.0; attribution "© Crown and database right …". EU-origin items are
// dual-licensed and pre-1987 SIs published by Westlaw need Westlaw's attribution: the route's licence notice
// says so, since the route serves UK types only by default.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const LEGISLATION_GOV_UK_SPEC: UpstreamSpec = {
  name: "gov-gb-legislation",
  defaultBaseUrl: "https://www.legislation.gov.uk",
  maxConcurrent: 2,
  minIntervalMs: 200,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 30_000,
};

export const SITE = "https://www.legislation.gov.uk";
export const SEARCH_PATH = "/search/data.feed";
const NEW_ITEMS_PATH = "/new/data.feed";
/** Entries asked of the feed (documented as results-count=N, default 20) and re-ranked by title match. */
const SEARCH_RESULTS = 100;

interface Fetched {
  xml: string;
  url: string;
  recordedSample: boolean;
}

async function getXml(client: UpstreamClient, path: string, query?: Record<string, string | number>) {
  const response = await client.get({ path, query, headers: { accept: "application/xml" } });
  return response;
}

function ensureOk(client: UpstreamClient, status: number, url: string): void {
  if (status >= 400) throw new UpstreamError(client.name, `HTTP ${status} from ${url}`, status);
}

export async function searchTitles(client: UpstreamClient, title: string): Promise<Fetched> {
  const response = await getXml(client, SEARCH_PATH, { title, "results-count": SEARCH_RESULTS });
  ensureOk(client, response.status, response.url);
  return { xml: response.body, url: response.url, recordedSample: response.recordedSample };
}

export async function newItems(client: UpstreamClient): Promise<Fetched> {
  const response = await getXml(client, NEW_ITEMS_PATH);
  ensureOk(client, response.status, response.url);
  return { xml: response.body, url: response.url, recordedSample: response.recordedSample };
}

type ActFetch =
  | ({ kind: "act" } & Fetched)
  /** 300 Multiple Choices: the id names several acts; `html` lists them. */
  | { kind: "choices"; html: string; url: string; recordedSample: boolean }
  | { kind: "missing" };

/** The act's table of contents with its metadata, the acts an ambiguous id may mean, or missing (404). */
export async function fetchActContents(client: UpstreamClient, id: string): Promise<ActFetch> {
  const response = await getXml(client, `/${id}/contents/data.xml`);
  if (response.status === 404) return { kind: "missing" };
  if (response.status === 300) {
    return {
      kind: "choices",
      html: response.body,
      url: response.url,
      recordedSample: response.recordedSample,
    };
  }
  ensureOk(client, response.status, response.url);
  return { kind: "act", xml: response.body, url: response.url, recordedSample: response.recordedSample };
}
