// Cellar SPARQL endpoint of the Publications Office of the EU (Virtuoso), https://publications.europa.eu/
// webapi/rdf/sparql, GET ?query=…&format=application/sparql-results+json (standard SPARQL 1.1 JSON results).
// Ontology: CDM (http://publications.europa.eu/ontology/cdm#); predicates as in public
// clients (michalovadek/eurlex R package; several MCP servers' queries): cdm:resource_legal_id_celex
// ("…"^^xsd:string), cdm:work_has_resource-type (…/resource-type/REG|DIR|DEC|…), cdm:work_date_document,
// cdm:resource_legal_in-force (xsd:boolean), cdm:resource_legal_date_entry-into-force,
// cdm:resource_legal_date_end-of-validity, cdm:resource_legal_eli (xsd:anyURI), and the English expression's
// cdm:expression_title. EUR-Lex has no keyless title search (its SOAP web service needs registration) and
// SPARQL CONTAINS is too slow for a paid call: titles are searched in our index "leg-eu", built by keyset pages
// of 1,000 CELEX numbers (../sparql.ts readKeyset): each CELEX with all its rows in one page (a page cut by a row
// limit used to split one CELEX's rows and drop some), SELECT DISTINCT, then checked against the endpoint's
// COUNT(DISTINCT ?celex). No key, no published limit; heavy queries time out: one request at a time, two
// seconds apart, 60 s timeout. The CELEX literal is typed xsd:string and results carry "distinct"/"ordered",
// as in a live Cellar answer pasted in jumajazu2/eurolex lib/sparql.md; no public capture of these queries'
// answers was found: the recordings say so.
// Licence: Cellar metadata CC0; documents reused under Commission Decision 2011/833/EU with acknowledgement
// "© European Union, https://eur-lex.europa.eu/"; only the Official Journal is authentic.
import type { UpstreamClient, UpstreamSpec } from "../../../../upstream/client.ts";
import { type SparqlAnswer, sparqlSelect, sparqlString } from "../sparql.ts";

export const CELLAR_SPEC: UpstreamSpec = {
  name: "gov-eu-cellar",
  defaultBaseUrl: "https://publications.europa.eu/webapi/rdf",
  maxConcurrent: 1,
  minIntervalMs: 2000,
  timeoutMs: 60_000,
  retries: 2,
  maxRetryAfterMs: 60_000,
};

export const SPARQL_PATH = "/sparql";
export const SPARQL_FORMAT = "application/sparql-results+json";
/** CELEX numbers a page of the index reads (one to a few rows each). */
export const INDEX_PAGE_KEYS = 1000;
/** Rows beyond which an answer may have been cut by the endpoint. */
export const ROW_CAP = 10_000;

const AUTHORITY = "http://publications.europa.eu/resource/authority";
const PREFIXES =
  "PREFIX cdm: <http://publications.europa.eu/ontology/cdm#>\n" +
  "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n";
const ENGLISH_TITLE =
  "?e cdm:expression_belongs_to_work ?work ; " +
  `cdm:expression_uses_language <${AUTHORITY}/language/ENG> ; cdm:expression_title ?title .`;

/** The kinds of act the index holds: regulations, directives and decisions, with implementing and delegated. */
const INDEXED_TYPES = [
  "REG",
  "REG_IMPL",
  "REG_DEL",
  "DIR",
  "DIR_IMPL",
  "DIR_DEL",
  "DEC",
  "DEC_IMPL",
  "DEC_DEL",
] as const;

/** One work by its CELEX number, with its English title. The CELEX is checked before it is written here. */
export function actQuery(celex: string): string {
  return (
    PREFIXES +
    "SELECT DISTINCT ?work ?type ?date ?force ?eif ?eov ?eli ?title WHERE {\n" +
    `  ?work cdm:resource_legal_id_celex "${celex}"^^xsd:string .\n` +
    "  OPTIONAL { ?work cdm:work_has_resource-type ?type }\n" +
    "  OPTIONAL { ?work cdm:work_date_document ?date }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_in-force ?force }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_date_entry-into-force ?eif }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_date_end-of-validity ?eov }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_eli ?eli }\n" +
    `  OPTIONAL { ${ENGLISH_TITLE} }\n` +
    "} LIMIT 50"
  );
}

const INDEXED = () => INDEXED_TYPES.map((t) => `<${AUTHORITY}/resource-type/${t}>`).join(", ");

/**
 * One page of the index: the next INDEX_PAGE_KEYS CELEX numbers of the indexed types after `after`, each with
 * all its rows; the English title is OPTIONAL so that every CELEX of the page answers, and a page with fewer
 * CELEX numbers is the last.
 */
export function indexPageQuery(after: string): string {
  return (
    PREFIXES +
    "SELECT DISTINCT ?celex ?work ?type ?date ?force ?eli ?title WHERE {\n" +
    "  { SELECT DISTINCT ?celex WHERE {\n" +
    "    ?w cdm:resource_legal_id_celex ?celex ; cdm:work_has_resource-type ?t .\n" +
    `    FILTER(?t IN (${INDEXED()}))\n` +
    `    FILTER(STR(?celex) > "${sparqlString(after)}") } ORDER BY STR(?celex) LIMIT ${INDEX_PAGE_KEYS} }\n` +
    "  ?work cdm:resource_legal_id_celex ?celex ; cdm:work_has_resource-type ?type .\n" +
    `  FILTER(?type IN (${INDEXED()}))\n` +
    `  OPTIONAL { ${ENGLISH_TITLE} }\n` +
    "  OPTIONAL { ?work cdm:work_date_document ?date }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_in-force ?force }\n" +
    "  OPTIONAL { ?work cdm:resource_legal_eli ?eli }\n" +
    "}"
  );
}

/** Cellar's own count of what the index pages read. */
export const INDEX_COUNT_QUERY =
  PREFIXES +
  "SELECT (COUNT(DISTINCT ?celex) AS ?n) WHERE {\n" +
  "  ?work cdm:resource_legal_id_celex ?celex ; cdm:work_has_resource-type ?type .\n" +
  `  FILTER(?type IN (${INDEXED()}))\n` +
  "}";

/** A SPARQL SELECT; anything but SPARQL JSON results (an HTML maintenance page, a timeout notice) is an error. */
export function sparql(client: UpstreamClient, query: string): Promise<SparqlAnswer> {
  return sparqlSelect(client, SPARQL_PATH, { query, format: SPARQL_FORMAT });
}
