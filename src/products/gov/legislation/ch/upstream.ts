// Fedlex (Swiss Federal Chancellery) linked data: SPARQL 1.1 endpoint https://fedlex.data.admin.ch/sparqlendpoint
// (GET ?query=…, Accept: application/sparql-results+json). Data model JOLux, documented officially at
// github.com/swiss/fedlex-jolux; shapes from public clients: a classified-compilation
// entry (SR) is a jolux:ConsolidationAbstract at https://fedlex.data.admin.ch/eli/cc/{year}/{id}; its language
// expressions (jolux:isRealizedBy, jolux:language …/language/DEU|FRA|ITA) carry jolux:title and
// jolux:titleShort; the SR number is the skos:notation of its jolux:classifiedByTaxonomyEntry typed
// …/notation-type/id-systematique (SR numbers are reused: 730.0 names a repealed and a current act);
// jolux:inForceStatus …/enforcement-status/0 (in force), /1 (no longer published in the SR), /3 (no longer in
// force); jolux:dateEntryInForce, jolux:dateDocument, jolux:dateNoLongerInForce.
// Trap: the website (www.fedlex.admin.ch/eli/…) answers HTTP 200 for any ELI, even an invented one, so an act's
// existence is only ever decided by SPARQL here. SPARQL CONTAINS is too slow for a paid call: titles are
// searched in our index "leg-ch", loaded by SPARQL and refreshed monthly.
// Traps of the endpoint: the same row comes from several named graphs (up to 150 times), so every query is
// SELECT DISTINCT; an ORDER BY with an OFFSET past 10,000 rows fails, so the index is read by keyset pages of
// 500 CAs (../sparql.ts readKeyset), each CA with all its rows, then checked against COUNT(DISTINCT ?ca).
// No public capture of these queries' answers was found: the recordings say so.
// No key, no published limit; heavy queries time out: one request at a time, two seconds apart.
// Terms: Swiss federal enactments are not protected by copyright (Art. 5 URG); the Publications Act (PublG,
// SR 170.512) makes the platform free to consult; only the Federal Chancellery's publication is binding.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { type SparqlAnswer, sparqlSelect, sparqlString } from "../sparql.ts";

export const FEDLEX_SPEC: UpstreamSpec = {
  name: "gov-ch-fedlex",
  defaultBaseUrl: "https://fedlex.data.admin.ch",
  maxConcurrent: 1,
  minIntervalMs: 2000,
  timeoutMs: 60_000,
  retries: 2,
  maxRetryAfterMs: 60_000,
};

export const SPARQL_PATH = "/sparqlendpoint";
export const FEDLEX_DATA = "https://fedlex.data.admin.ch";
/** CAs a page of the index reads (about three rows each: DEU, FRA, ITA). */
export const INDEX_PAGE_KEYS = 500;
/** Rows beyond which an answer may have been cut by the endpoint. */
export const ROW_CAP = 10_000;
const LANGUAGE = "http://publications.europa.eu/resource/authority/language";
const SR_NOTATION = "https://fedlex.data.admin.ch/vocabulary/notation-type/id-systematique";

const PREFIXES =
  "PREFIX jolux: <http://data.legilux.public.lu/resource/ontology/jolux#>\n" +
  "PREFIX skos: <http://www.w3.org/2004/02/skos/core#>\n";

/** The variables every query selects, one row per CA × language (× SR notation). */
const SELECT = "SELECT DISTINCT ?ca ?lang ?title ?short ?sr ?status ?entry ?doc ?end WHERE {\n";
const TITLES =
  "?ca jolux:isRealizedBy ?e . ?e jolux:language ?langUri ; jolux:title ?title .\n" +
  `  FILTER(?langUri IN (<${LANGUAGE}/DEU>, <${LANGUAGE}/FRA>, <${LANGUAGE}/ITA>))\n` +
  "  OPTIONAL { ?e jolux:titleShort ?short }\n";
const OTHER_DETAILS =
  '  BIND(STRAFTER(STR(?langUri), "/language/") AS ?lang)\n' +
  "  OPTIONAL { ?ca jolux:classifiedByTaxonomyEntry ?tax . ?tax skos:notation ?sr .\n" +
  `    FILTER(DATATYPE(?sr) = <${SR_NOTATION}>) }\n` +
  "  OPTIONAL { ?ca jolux:inForceStatus ?status }\n" +
  "  OPTIONAL { ?ca jolux:dateEntryInForce ?entry }\n" +
  "  OPTIONAL { ?ca jolux:dateDocument ?doc }\n" +
  "  OPTIONAL { ?ca jolux:dateNoLongerInForce ?end }\n";
const DETAILS = `  ${TITLES}${OTHER_DETAILS}`;

/** One act by its ELI path (eli/cc/2022/491); checked against its shape before it is written here. */
export function actByEliQuery(eliPath: string): string {
  return `${PREFIXES}${SELECT}  VALUES ?ca { <${FEDLEX_DATA}/${eliPath}> }\n  ?ca a jolux:ConsolidationAbstract .\n${DETAILS}}`;
}

/** The acts classified under an SR number (several when the number was reused). */
export function actBySrQuery(sr: string): string {
  return (
    `${PREFIXES}${SELECT}  ?ca a jolux:ConsolidationAbstract ; jolux:classifiedByTaxonomyEntry ?srTax .\n` +
    `  ?srTax skos:notation "${sr}"^^<${SR_NOTATION}> .\n${DETAILS}}`
  );
}

/**
 * One page of the index: the next INDEX_PAGE_KEYS CAs after `after` (in STR order), each with all its rows;
 * titles are OPTIONAL so that every CA of the page answers, and a page with fewer CAs is the last.
 */
export function indexPageQuery(after: string): string {
  return (
    `${PREFIXES}${SELECT}` +
    "  { SELECT DISTINCT ?ca WHERE { ?ca a jolux:ConsolidationAbstract .\n" +
    `    FILTER(STR(?ca) > "${sparqlString(after)}") } ORDER BY STR(?ca) LIMIT ${INDEX_PAGE_KEYS} }\n` +
    `  OPTIONAL { ${TITLES}  }\n${OTHER_DETAILS}}`
  );
}

/** Fedlex's own count of what the index pages read. */
export const INDEX_COUNT_QUERY = `${PREFIXES}SELECT (COUNT(DISTINCT ?ca) AS ?n) WHERE { ?ca a jolux:ConsolidationAbstract . }`;

/** A SPARQL SELECT; anything but SPARQL JSON results (an HTML page served with 200) is an error. */
export function sparql(client: UpstreamClient, query: string): Promise<SparqlAnswer> {
  return sparqlSelect(client, SPARQL_PATH, { query });
}
