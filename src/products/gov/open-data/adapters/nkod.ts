// NKOD, the Czech national open-data catalogue (data.gov.cz), over its public SPARQL endpoint
// `GET {base}/sparql?query=…` answering W3C SPARQL 1.1 JSON results (Accept: application/sparql-results+json).
// NKOD ended its CKAN API in 2024 and its GraphQL API has no title filter, so a keyword search is a SPARQL
// SELECT over dcat:Dataset titles with one REGEX per query word and a LIMIT.
//
// Why live SPARQL and not a local index from the dump: the dump (nkod.trig) is a large RDF file we would need
// an RDF parser and a nightly rebuild for, while the endpoint answers a bounded title filter directly and is
// always current; a search answer is cached by its hash for 12 hours like every portal's. Czech titles must
// match folded ("zivotni prostredi" finds "Životní prostředí"): each query word is folded and every letter
// becomes a class of its Czech variants ([zžZŽ]), so the endpoint matches without diacritics and case.
// The endpoint gives no total without a second, costlier COUNT query: totalCount is null.
//
// Sources: NKOD's own notes ( CKAN support ended 2024-10, SPARQL endpoint,
// dumps, GraphQL without a title filter); NKOD's data model DCAT-AP-CZ (dcat:Dataset, dcterms:title @cs/@en,
// dcterms:publisher with foaf:name, dcat:distribution with dcterms:format, dcat:downloadURL, dcat:accessURL
// and the terms of use `pu:specifikace` / `pu:autorské-dílo`, pu = https://data.gov.cz/slovník/podmínky-užití/);
// public SPARQL queries against data.gov.cz/sparql (datagov-cz/nkod-graph-browser, petrbouchal/czso,
// bliakher/uredni_desky). No key and no published rate limit: one request at a time, a second apart.
import { UpstreamError } from "../../../../upstream/client.ts";
import { searchWords } from "../../shared/query.ts";
import { type DatasetDetailBody, type DatasetItemBody, isoTimestamp } from "../dataset.ts";
import {
  type Ctx,
  type DatasetLookup,
  MAX_RESOURCES,
  PAGE_SIZE,
  type Portal,
  type PortalAdapter,
} from "../portal.ts";
import { readJson } from "./read-json.ts";

const NKOD_DATASET_PREFIX = "https://data.gov.cz/zdroj/datové-sady/";
/** Query words sent to the endpoint: more only make the filter slower. */
const NKOD_MAX_WORDS = 6;

const PREFIXES = [
  "PREFIX dcat: <http://www.w3.org/ns/dcat#>",
  "PREFIX dcterms: <http://purl.org/dc/terms/>",
  "PREFIX foaf: <http://xmlns.com/foaf/0.1/>",
].join("\n");
const TERMS_OF_USE = "<https://data.gov.cz/slovník/podmínky-užití/specifikace>";
const AUTHORS_WORK = "<https://data.gov.cz/slovník/podmínky-užití/autorské-dílo>";

/** Czech letters a folded query letter stands for. */
const VARIANTS: Record<string, string> = {
  a: "aá",
  c: "cč",
  d: "dď",
  e: "eéě",
  i: "ií",
  n: "nň",
  o: "oó",
  r: "rř",
  s: "sš",
  t: "tť",
  u: "uúů",
  y: "yý",
  z: "zž",
};

/** A regular expression matching a folded word in a title whatever its diacritics and case. */
export function foldedPattern(word: string): string {
  return [...word]
    .map((letter) => {
      const variants = VARIANTS[letter] ?? letter;
      const both = `${variants}${variants.toUpperCase()}`;
      const unique = [...new Set(both)].join("");
      return unique.length === 1 ? unique : `[${unique}]`;
    })
    .join("");
}

export function datasetIdOf(iri: string): string {
  return iri.startsWith(NKOD_DATASET_PREFIX) ? iri.slice(NKOD_DATASET_PREFIX.length) : iri;
}

export function datasetIriOf(id: string): string {
  return id.startsWith("https://") ? id : `${NKOD_DATASET_PREFIX}${id}`;
}

/** Ids are the dataset IRI after …/datové-sady/ ("00007064/9c73b8…", "MDopravy/katalog-mdcr/a86c…"), or a whole
 * https IRI for a dataset NKOD names otherwise. */
export const NKOD_ID = {
  pattern:
    /^(?!(?:.*\/)?\.{1,2}(?:\/|$))(?:[\p{L}\p{N}._~-]{1,100}(?:\/[\p{L}\p{N}._~-]{1,200}){1,4}|https:\/\/[^\s<>"{}|\\^`]{1,400})$/u,
  describe: "an NKOD dataset id from a search result, e.g. 00007064/9c73b802263c5e0ccf5542f10fbc35bb",
};

/** NKOD's own terms-of-use values (podmínky užití) that are not licences, named. */
const NKOD_TERMS: Record<string, string> = {
  "https://data.gov.cz/podmínky-užití/neobsahuje-autorská-díla/":
    "Does not contain works protected by copyright",
  "https://data.gov.cz/podmínky-užití/obsahuje-více-autorských-děl/":
    "Contains several works protected by copyright",
};

function iriRef(iri: string): string {
  if (/[\s<>"{}|\\^`]/.test(iri)) throw new Error(`not an IRI: ${iri}`);
  return `<${iri}>`;
}

export function searchQuery(query: string): string {
  const words = searchWords(query).slice(0, NKOD_MAX_WORDS);
  const filters = words.map((w) => `REGEX(STR(?matched), "${foldedPattern(w)}", "i")`).join(" && ");
  return `${PREFIXES}
SELECT ?dataset (SAMPLE(?cs) AS ?titleCs) (SAMPLE(?en) AS ?titleEn) (SAMPLE(?any) AS ?titleAny)
  (SAMPLE(?publisherName) AS ?publisher) (MAX(STR(?modified)) AS ?lastModified)
  (COUNT(DISTINCT ?distribution) AS ?distributions) (SAMPLE(?licence) AS ?dataLicence)
WHERE {
  { SELECT DISTINCT ?dataset WHERE {
      ?dataset a dcat:Dataset ; dcterms:title ?matched .
      FILTER(${filters})
    } LIMIT ${PAGE_SIZE} }
  ?dataset dcterms:title ?any .
  OPTIONAL { ?dataset dcterms:title ?cs FILTER(LANG(?cs) = "cs") }
  OPTIONAL { ?dataset dcterms:title ?en FILTER(LANG(?en) = "en") }
  OPTIONAL { ?dataset dcterms:publisher ?publisherIri . ?publisherIri foaf:name ?publisherName FILTER(LANG(?publisherName) = "cs") }
  OPTIONAL { ?dataset dcterms:modified ?modified }
  OPTIONAL { ?dataset dcat:distribution ?distribution OPTIONAL { ?distribution ${TERMS_OF_USE}/${AUTHORS_WORK} ?licence } }
}
GROUP BY ?dataset`;
}

function datasetQuery(iri: string): string {
  return `${PREFIXES}
SELECT ?p ?o ?name WHERE {
  VALUES ?p { dcterms:title dcterms:description dcat:keyword dcterms:modified dcterms:publisher }
  ${iriRef(iri)} a dcat:Dataset ; ?p ?o .
  OPTIONAL { ?o foaf:name ?name FILTER(LANG(?name) = "cs") }
}
LIMIT 1000`;
}

function distributionsQuery(iri: string): string {
  return `${PREFIXES}
SELECT ?distribution ?title ?format ?download ?access ?licence WHERE {
  ${iriRef(iri)} dcat:distribution ?distribution .
  OPTIONAL { ?distribution dcterms:title ?title }
  OPTIONAL { ?distribution dcterms:format ?format }
  OPTIONAL { ?distribution dcat:downloadURL ?download }
  OPTIONAL { ?distribution dcat:accessURL ?access }
  OPTIONAL { ?distribution ${TERMS_OF_USE}/${AUTHORS_WORK} ?licence }
}
LIMIT 1000`;
}

interface SparqlTerm {
  type?: string;
  value?: string;
  "xml:lang"?: string;
  datatype?: string;
}
export type SparqlRow = Record<string, SparqlTerm | undefined>;
interface SparqlResults {
  results?: { bindings?: SparqlRow[] };
}

const value = (row: SparqlRow, name: string): string | null => {
  const text = row[name]?.value;
  return text && text.trim() !== "" ? text : null;
};

function datasetPage(iri: string): string {
  return `https://data.gov.cz/datov%C3%A1-sada?iri=${encodeURIComponent(iri)}`;
}

function licenceFrom(url: string | null) {
  return url ? { id: null, title: NKOD_TERMS[url] ?? null, url } : null;
}

export function normaliseNkodRow(row: SparqlRow): DatasetItemBody {
  const iri = value(row, "dataset") ?? "";
  const id = datasetIdOf(iri);
  return {
    id,
    title: value(row, "titleCs") ?? value(row, "titleEn") ?? value(row, "titleAny") ?? id,
    organization: value(row, "publisher"),
    modified: isoTimestamp(value(row, "lastModified")),
    resourceCount: Number(value(row, "distributions") ?? 0) || 0,
    sourceUrl: datasetPage(iri),
    dataLicence: licenceFrom(value(row, "dataLicence")),
  };
}

/** A literal in Czech, else English, else any: the language rule over rows of one property. */
function byLanguage(rows: SparqlRow[], name: string): string | null {
  for (const language of ["cs", "en"]) {
    const found = rows.find((r) => r[name]?.["xml:lang"] === language && value(r, name));
    if (found) return value(found, name);
  }
  const any = rows.find((r) => value(r, name));
  return any ? value(any, name) : null;
}

/** The file type's code from its EU vocabulary IRI (…/file-type/CSV → CSV). */
function formatName(format: string | null): string | null {
  if (!format) return null;
  return format.split("/").filter(Boolean).pop() ?? format;
}

export function normaliseNkodDetail(
  iri: string,
  rows: SparqlRow[],
  distributionRows: SparqlRow[],
): DatasetDetailBody {
  const of = (property: string) => rows.filter((r) => r.p?.value === property);
  const publisherRows = of("http://purl.org/dc/terms/publisher");
  const modified = of("http://purl.org/dc/terms/modified")
    .map((r) => value(r, "o"))
    .filter((m): m is string => m !== null)
    .sort()
    .pop();
  const keywordRows = of("http://www.w3.org/ns/dcat#keyword");
  const keywordLanguage = keywordRows.some((r) => r.o?.["xml:lang"] === "cs") ? "cs" : undefined;
  const grouped = new Map<string, SparqlRow[]>();
  for (const row of distributionRows) {
    const key = value(row, "distribution");
    if (key) grouped.set(key, [...(grouped.get(key) ?? []), row]);
  }
  const distributions = [...grouped.values()];
  const id = datasetIdOf(iri);
  return {
    id,
    title: byLanguage(of("http://purl.org/dc/terms/title"), "o") ?? id,
    organization: byLanguage(publisherRows, "name"),
    modified: isoTimestamp(modified ?? null),
    resourceCount: distributions.length,
    sourceUrl: datasetPage(iri),
    dataLicence: licenceFrom(distributionRows.map((r) => value(r, "licence")).find(Boolean) ?? null),
    description: byLanguage(of("http://purl.org/dc/terms/description"), "o"),
    keywords: [
      ...new Set(
        keywordRows
          .filter((r) => keywordLanguage === undefined || r.o?.["xml:lang"] === keywordLanguage)
          .map((r) => value(r, "o"))
          .filter((k): k is string => k !== null),
      ),
    ],
    resources: distributions.slice(0, MAX_RESOURCES).map((group) => ({
      name: byLanguage(group, "title"),
      format: formatName(group.map((r) => value(r, "format")).find(Boolean) ?? null),
      url:
        group.map((r) => value(r, "download")).find(Boolean) ??
        group.map((r) => value(r, "access")).find(Boolean) ??
        null,
    })),
  };
}

async function select(ctx: Ctx, portal: Portal, query: string) {
  const client = ctx.upstreams.client(portal.upstream);
  const response = await client.get({
    path: "/sparql",
    query: { query },
    headers: { accept: "application/sparql-results+json" },
  });
  if (response.status !== 200) {
    throw new UpstreamError(
      portal.upstream.name,
      `SPARQL failed (HTTP ${response.status}): ${response.body.slice(0, 120).replace(/\s+/g, " ")}`,
      response.status,
    );
  }
  const results = readJson<SparqlResults>(portal, response);
  const rows = results.results?.bindings;
  if (!Array.isArray(rows)) throw new UpstreamError(portal.upstream.name, "SPARQL answer without results");
  return { response, rows };
}

export const nkodAdapter: PortalAdapter = {
  async search(ctx: Ctx, portal: Portal, query: string) {
    const { response, rows } = await select(ctx, portal, searchQuery(query));
    return {
      search: { totalCount: null, items: rows.map(normaliseNkodRow), source: response.url },
      recordedSample: response.recordedSample,
    };
  },

  async dataset(ctx: Ctx, portal: Portal, id: string): Promise<DatasetLookup> {
    const iri = datasetIriOf(id);
    const dataset = await select(ctx, portal, datasetQuery(iri));
    if (dataset.rows.length === 0) return { found: false };
    const distributions = await select(ctx, portal, distributionsQuery(iri));
    return {
      found: true,
      dataset: normaliseNkodDetail(iri, dataset.rows, distributions.rows),
      apiUrl: dataset.response.url,
      recordedSample: dataset.response.recordedSample,
    };
  },
};
