// RIS OGD API v2.6 (Rechtsinformationssystem des Bundes, Bundeskanzleramt), consolidated federal law
// (Applikation BrKons). Sources: the official "OGD-RIS API Handbuch V2_6" (copy in philrox/ris-mcp-ts
// docs/Dokumentation_OGD-RIS_API.md), https://data.bka.gv.at/ris/api/v2.6/, and public
// clients' parser tests (philrox/ris-mcp-ts) for the XML-to-JSON quirks.
// - GET /Bundesrecht?Applikation=BrKons&Titel=…&Fassung.FassungVom=YYYY-MM-DD&DokumenteProSeite=OneHundred&
//   Seitennummer=n. Always JSON: {OgdSearchResult: {OgdDocumentResults: {Hits, OgdDocumentReference}}} or
//   {OgdSearchResult: {Error: {Message}}}. One hit is a provision (§, Artikel, Anlage), not an act: acts are
//   grouped by their 8-digit Gesetzesnummer.
// - One act: the same with Gesetzesnummer=<id> (exact match), paged; when no provision is valid today, once
//   more without the date, latest Ausserkrafttretensdatum first, to tell a repealed act from an unknown one.
// - Change feed: GET /History?Anwendung=Bundesnormen&AenderungenVon=YYYY-MM-DD&DokumenteProSeite=OneHundred&
//   Seitennummer=n (note `Anwendung`, not `Applikation`; the handbook and ris-mcp-ts parse its answer as the same
//   OgdSearchResult document list). Used to refresh the acts we hold whose provisions changed.
// No key, no published rate limit: one request at a time, one a second. Licence: CC BY 4.0, attribution
// "Datenquelle: RIS – https://www.ris.bka.gv.at/" (statute texts are also free works under § 7 UrhG).
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { UpstreamError } from "../../../../upstream/client.ts";

export const RIS_SPEC: UpstreamSpec = {
  name: "gov-at-ris",
  defaultBaseUrl: "https://data.bka.gv.at/ris/api/v2.6",
  maxConcurrent: 1,
  minIntervalMs: 1000,
  timeoutMs: 20_000,
  retries: 2,
  maxRetryAfterMs: 30_000,
};

const BUNDESRECHT_PATH = "/Bundesrecht";
/** Pages of 100 provisions read for one act: 3,000 provisions cover even the ABGB. */
export const MAX_ACT_PAGES = 30;

interface Fetched {
  json: unknown;
  url: string;
  recordedSample: boolean;
}

async function getBundesrecht(
  client: UpstreamClient,
  query: Record<string, string | number>,
): Promise<Fetched> {
  const response = await client.get({
    path: BUNDESRECHT_PATH,
    query: { Applikation: "BrKons", DokumenteProSeite: "OneHundred", ...query },
    headers: { accept: "application/json" },
  });
  if (response.status >= 400) {
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  }
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    throw new UpstreamError(
      client.name,
      `not JSON from ${response.url} (maintenance page?)`,
      response.status,
    );
  }
  return { json, url: response.url, recordedSample: response.recordedSample };
}

const today = (now = new Date()) => now.toISOString().slice(0, 10);

/** Provisions valid today whose act title matches; one page of 100. */
export function searchTitles(client: UpstreamClient, titel: string, now = new Date()): Promise<Fetched> {
  return getBundesrecht(client, { Titel: titel, "Fassung.FassungVom": today(now), Seitennummer: 1 });
}

/** One page of an act's provisions valid today. */
export function actProvisions(client: UpstreamClient, id: string, page: number, now = new Date()) {
  return getBundesrecht(client, { Gesetzesnummer: id, "Fassung.FassungVom": today(now), Seitennummer: page });
}

/** An act's provisions of every date, latest end of validity first (for acts no longer in force). */
export function actHistory(client: UpstreamClient, id: string): Promise<Fetched> {
  return getBundesrecht(client, {
    Gesetzesnummer: id,
    "Sortierung.SortedByColumn": "Ausserkrafttretensdatum",
    "Sortierung.SortDirection": "Descending",
    Seitennummer: 1,
  });
}

const HISTORY_PATH = "/History";

/** One page of the provisions of federal law changed since `from` (YYYY-MM-DD). */
export async function changedSince(client: UpstreamClient, from: string, page: number): Promise<Fetched> {
  const response = await client.get({
    path: HISTORY_PATH,
    query: {
      Anwendung: "Bundesnormen",
      AenderungenVon: from,
      DokumenteProSeite: "OneHundred",
      Seitennummer: page,
    },
    headers: { accept: "application/json" },
  });
  if (response.status >= 400) {
    throw new UpstreamError(client.name, `HTTP ${response.status} from ${response.url}`, response.status);
  }
  try {
    return { json: JSON.parse(response.body), url: response.url, recordedSample: response.recordedSample };
  } catch {
    throw new UpstreamError(
      client.name,
      `not JSON from ${response.url} (maintenance page?)`,
      response.status,
    );
  }
}
