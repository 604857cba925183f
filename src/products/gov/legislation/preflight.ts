// The checks `npm run preflight` runs for the legislation routes: one cheap request to each upstream, the one
// its adapter makes, kept small (one act, one hit, a one-row SPARQL query). An answer of the wrong kind with
// HTTP 200 (a maintenance page where a feed or JSON belongs) is a warning, not "ok".
import type { PreflightCheck, PreflightVerdict } from "../../../catalog/product.ts";
import { httpProbe, judgeStatus } from "../../../preflight/probe.ts";
import type { UpstreamRequest, UpstreamResponse, UpstreamSpec } from "../../../upstream/client.ts";
import { RIS_SPEC } from "./at/upstream.ts";
import { FRL_SPEC, TITLE_FIELDS, titleFilter } from "./au/upstream.ts";
import { JUSTICE_LAWS_SPEC, LEGIS_PATH } from "./ca/upstream.ts";
import { SPARQL_PATH as FEDLEX_SPARQL_PATH, FEDLEX_SPEC } from "./ch/upstream.ts";
import { NEURIS_SPEC } from "./de/neuris.ts";
import { GII_SPEC, TOC_PATH } from "./de/upstream.ts";
import { SPARQL_PATH as CELLAR_SPARQL_PATH, CELLAR_SPEC, SPARQL_FORMAT } from "./eu/upstream.ts";
import { SEARCH_PATH as GB_SEARCH_PATH, LEGISLATION_GOV_UK_SPEC } from "./gb/upstream.ts";
import { EGOV_SPEC, LAWS_PATH } from "./jp/upstream.ts";
import { SEARCH_PATH as PL_SEARCH_PATH, SEJM_ELI_SPEC } from "./pl/upstream.ts";
import { SPARQL_JSON } from "./sparql.ts";
import { ECFR_SPEC, TITLES_PATH } from "./us/upstream.ts";

const JSON_TYPE = /json/i;
const XML_TYPE = /xml/i;

/** 2xx of the expected content type is ok; 2xx of another type (HTML with 200) is a warning. */
function expecting(type: RegExp) {
  return (response: UpstreamResponse, fix: string | undefined): PreflightVerdict => {
    const verdict = judgeStatus(response, fix);
    const contentType = response.headers.get("content-type") ?? "";
    if (verdict.state !== "ok" || type.test(contentType)) return verdict;
    return {
      state: "warn",
      detail: `HTTP ${response.status} from ${response.url.replace(/\?.*$/, "")} but ${contentType || "no content type"} (maintenance page?)`,
      fix: "Try again later; if it lasts, check the upstream's base URL.",
    };
  };
}

const probe = (spec: UpstreamSpec, request: UpstreamRequest, type: RegExp) =>
  httpProbe(spec, request, {
    judge: expecting(type),
    fix: `Check that ${spec.defaultBaseUrl} (or its _BASE_URL setting) is reachable from this host.`,
  });

const sparqlProbe = (spec: UpstreamSpec, path: string, query: string, extra: Record<string, string> = {}) =>
  probe(spec, { path, query: { query, ...extra }, headers: { accept: SPARQL_JSON } }, JSON_TYPE);

export function legislationPreflight(): PreflightCheck[] {
  return [
    probe(
      RIS_SPEC,
      {
        path: "/Bundesrecht",
        query: { Applikation: "BrKons", Gesetzesnummer: "10002531", Seitennummer: 1 },
        headers: { accept: "application/json" },
      },
      JSON_TYPE,
    ),
    probe(
      FRL_SPEC,
      {
        path: "/Titles",
        query: { $filter: titleFilter(["privacy"]), $select: TITLE_FIELDS, $top: 1 },
        headers: { accept: "application/json" },
      },
      JSON_TYPE,
    ),
    probe(JUSTICE_LAWS_SPEC, { path: LEGIS_PATH, headers: { accept: "application/xml" } }, XML_TYPE),
    sparqlProbe(
      FEDLEX_SPEC,
      FEDLEX_SPARQL_PATH,
      "SELECT ?p WHERE { <https://fedlex.data.admin.ch/eli/cc/2022/491> ?p ?o } LIMIT 1",
    ),
    probe(GII_SPEC, { path: TOC_PATH, headers: { accept: "application/xml" } }, XML_TYPE),
    probe(
      NEURIS_SPEC,
      {
        path: "/v1/legislation",
        query: { searchTerm: "Datenschutz", size: 1, pageIndex: 0 },
        headers: { accept: "application/json" },
      },
      JSON_TYPE,
    ),
    sparqlProbe(
      CELLAR_SPEC,
      CELLAR_SPARQL_PATH,
      "SELECT ?work WHERE { ?work <http://publications.europa.eu/ontology/cdm#resource_legal_id_celex> " +
        '"32016R0679"^^<http://www.w3.org/2001/XMLSchema#string> } LIMIT 1',
      { format: SPARQL_FORMAT },
    ),
    probe(
      LEGISLATION_GOV_UK_SPEC,
      {
        path: GB_SEARCH_PATH,
        query: { title: "data protection", "results-count": 1 },
        headers: { accept: "application/xml" },
      },
      XML_TYPE,
    ),
    probe(
      EGOV_SPEC,
      {
        path: LAWS_PATH,
        query: { law_title: "民法", limit: 1, offset: 0, response_format: "json" },
        headers: { accept: "application/json" },
      },
      JSON_TYPE,
    ),
    probe(
      SEJM_ELI_SPEC,
      {
        path: PL_SEARCH_PATH,
        query: { title: "ochronie danych", limit: 1, offset: 0 },
        headers: { accept: "application/json" },
      },
      JSON_TYPE,
    ),
    probe(ECFR_SPEC, { path: TITLES_PATH, headers: { accept: "application/json" } }, JSON_TYPE),
  ];
}
