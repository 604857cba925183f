// CourtListener v4 search page (type=o: opinion clusters) → the hits of /v1/courts/search.
import { z } from "zod";

const COURTLISTENER_SITE = "https://www.courtlistener.com";

export interface CourtHit {
  caseName: string;
  court: string;
  /** YYYY-MM-DD, or "" when CourtListener gives none. */
  dateFiled: string;
  docketNumber: string;
  absoluteUrl: string;
  courtId: string;
  clusterId: number;
}

export interface SearchPage {
  /** CourtListener's count of every match, beyond this page. */
  totalCount: number;
  hits: CourtHit[];
  /** Results left out because they carried no usable cluster id. */
  skipped: number;
}

export class SearchPageError extends Error {}

const Text = z.string().nullish();

const RawResult = z.object({
  cluster_id: z.number().int().positive(),
  caseName: Text,
  caseNameFull: Text,
  court: Text,
  court_id: Text,
  dateFiled: Text,
  docketNumber: Text,
  absolute_url: Text,
});

const RawPage = z.object({
  count: z.number().int().nonnegative().nullish(),
  results: z.array(z.unknown()),
});

function clean(value: string | null | undefined): string {
  return (value ?? "").replace(/\s+/g, " ").trim();
}

/** v4 gives a bare date; older answers gave a timestamp, of which the date is kept. */
function dateOf(value: string | null | undefined): string {
  const match = clean(value).match(/^(\d{4}-\d{2}-\d{2})/);
  return match ? match[1]! : "";
}

function absoluteUrlOf(value: string | null | undefined): string {
  const path = clean(value);
  if (/^https?:\/\//.test(path)) return path;
  return path.startsWith("/") ? `${COURTLISTENER_SITE}${path}` : "";
}

function normaliseHit(raw: z.infer<typeof RawResult>): CourtHit {
  return {
    caseName: clean(raw.caseName) || clean(raw.caseNameFull),
    court: clean(raw.court),
    dateFiled: dateOf(raw.dateFiled),
    docketNumber: clean(raw.docketNumber),
    absoluteUrl: absoluteUrlOf(raw.absolute_url),
    courtId: clean(raw.court_id),
    clusterId: raw.cluster_id,
  };
}

/** Parses one page of `GET /api/rest/v4/search/?type=o`; throws SearchPageError when it is not one. */
export function normaliseSearchPage(body: string): SearchPage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const start = body.trim().slice(0, 80).replace(/\s+/g, " ");
    throw new SearchPageError(`CourtListener answered something that is not JSON: "${start}"`);
  }
  const page = RawPage.safeParse(json);
  if (!page.success) throw new SearchPageError("CourtListener's answer has no results list");
  const hits: CourtHit[] = [];
  let skipped = 0;
  for (const item of page.data.results) {
    const result = RawResult.safeParse(item);
    if (result.success) hits.push(normaliseHit(result.data));
    else skipped++;
  }
  return { totalCount: Math.max(page.data.count ?? hits.length, hits.length), hits, skipped };
}
