// Fedlex (Swiss Federal Chancellery) linked data: SPARQL 1.1 endpoint https://fedlex.data.admin.ch/sparqlendpoint
// (GET ?query=…, Accept: application/sparql-results+json). Data model JOLux, documented officially at
// github.com/swiss/fedlex-jolux; shapes from upstreams-gov.md A3 and public clients: a classified-compilation
// entry (SR) is a jolux:ConsolidationAbstract at https://fedlex.data.admin.ch/eli/cc/{year}/{id}; its language
// expressions (jolux:isRealizedBy, jolux:language …/language/DEU|FRA|ITA) carry jolux:title and
// jolux:titleShort; the SR number is the skos:notation of its jolux:classifiedByTaxonomyEntry typed
// …/notation-type/id-systematique (SR numbers are reused: 730.0 names a repealed and a current act);
// jolux:inForceStatus …/enforcement-status/0 (in force), /1 (no longer published in the SR), /3 (no longer in
// force); jolux:dateEntryInForce, jolux:dateDocument, jolux:dateNoLongerInForce.
// Trap: the website (www.fedlex.admin.ch/eli/…) answers HTTP 200 for any ELI, even an invented one, so an act's
// existence is only ever decided by SPARQL here. SPARQL CONTAINS is too slow for a paid call: titles are
// searched in our index "leg-ch", loaded by SPARQL (keyset pages in ELI order) and refreshed monthly.
// No key, no published limit; heavy queries time out: one request at a time, two seconds apart.
// Terms: Swiss federal enactments are not protected by copyright (Art. 5 URG); the Publications Act (PublG,
// SR 170.512) makes the platform free to consult; only the Federal Chancellery's publication is binding.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { type SparqlAnswer, sparqlSelect } from "../sparql.ts";

export type { SparqlAnswer, SparqlBinding } from "../sparql.ts";

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
export const INDEX_PAGE_SIZE = 10_000;
const LANGUAGE = "http://publications.europa.eu/resource/authority/language";
const SR_NOTATION = "https://fedlex.data.admin.ch/vocabulary/notation-type/id-systematique";

const PREFIXES =
  "PREFIX jolux: <http://data.legilux.public.lu/resource/ontology/jolux#>\n" +
  "PREFIX skos: <http://www.w3.org/2004/02/skos/core#>\n";

/** The variables every query selects, one row per CA × language (× SR notation). */
const SELECT = "SELECT ?ca ?lang ?title ?short ?sr ?status ?entry ?doc ?end WHERE {\n";
const DETAILS =
  "  ?ca jolux:isRealizedBy ?e . ?e jolux:language ?langUri ; jolux:title ?title .\n" +
  `  FILTER(?langUri IN (<${LANGUAGE}/DEU>, <${LANGUAGE}/FRA>, <${LANGUAGE}/ITA>))\n` +
  '  BIND(STRAFTER(STR(?langUri), "/language/") AS ?lang)\n' +
  "  OPTIONAL { ?e jolux:titleShort ?short }\n" +
  "  OPTIONAL { ?ca jolux:classifiedByTaxonomyEntry ?tax . ?tax skos:notation ?sr .\n" +
  `    FILTER(DATATYPE(?sr) = <${SR_NOTATION}>) }\n` +
  "  OPTIONAL { ?ca jolux:inForceStatus ?status }\n" +
  "  OPTIONAL { ?ca jolux:dateEntryInForce ?entry }\n" +
  "  OPTIONAL { ?ca jolux:dateDocument ?doc }\n" +
  "  OPTIONAL { ?ca jolux:dateNoLongerInForce ?end }\n";

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

/** One page of the index: CAs from `from` on (inclusive: a CA cut by the page limit is read again whole). */
export function indexPageQuery(from: string): string {
  return (
    `${PREFIXES}${SELECT}  ?ca a jolux:ConsolidationAbstract .\n${DETAILS}` +
    `  FILTER(STR(?ca) >= "${from}")\n} ORDER BY ?ca LIMIT ${INDEX_PAGE_SIZE}`
  );
}

/** A SPARQL SELECT; anything but SPARQL JSON results (an HTML page served with 200) is an error. */
export function sparql(client: UpstreamClient, query: string): Promise<SparqlAnswer> {
  return sparqlSelect(client, SPARQL_PATH, { query });
}
