// GET /v1/gov/eu/eurlex: one EU act by CELEX number (cached, fetched from Cellar SPARQL by a job) or a title
// search of our index "leg-eu" (built from Cellar by a warmer).
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { type IndexedSearch, indexSearchAnswer, searchLimitParameter } from "../index-search.ts";
import { legislationRoute } from "../route.ts";
import { type EuAct, type EuSearchItem, parseCelex } from "./normalise.ts";
import { CELLAR_SPEC, SPARQL_PATH } from "./upstream.ts";
import { EU_INDEX, EU_INDEX_WARMER } from "./warmer.ts";

export const EU_ACT_QUEUE = "gov.eu.legislation.act";
export const EU_INDEX_QUEUE = "gov.eu.legislation.index";
export const EU_CACHE = "gov-leg-eu";

const EU_INFO: GovRouteInfo = {
  cc: "eu",
  country: "European Union",
  family: "legislation",
  upstream: "Cellar SPARQL (Publications Office of the EU), title index built by this service",
  licence: LICENCES.eurlex(),
  warmers: [EU_INDEX_WARMER],
};

const cellarUri = z.url().describe("The act's work URI in Cellar, the Publications Office's repository");

const EuLegislationAnswer = legislationAnswer({ cellarUri }, { cellarUri });

const EuQuery = lookupQuery({
  id: { describe: "One act by its CELEX number, e.g. 32016R0679 (the GDPR)", parse: parseCelex },
  qDescribe:
    "Words of the act's English title or its number (2016/679), searched in our index of EU regulations, " +
    "directives and decisions; case and diacritics folded",
  extra: searchLimitParameter,
});

const EU_SEARCH: IndexedSearch = {
  info: EU_INFO,
  collection: EU_INDEX,
  buildQueue: EU_INDEX_QUEUE,
  buildKey: "index",
  building: "Our index of EU legislation is being built from Cellar; try again in about a minute.",
  source: (ctx) => ctx.upstreams.client(CELLAR_SPEC).url({ path: SPARQL_PATH }),
};

export function euLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof EuQuery>, EuAct>({
    info: EU_INFO,
    path: "/v1/gov/eu/eurlex",
    summary: "EU legislation (EUR-Lex / Cellar): one act by CELEX or a title search",
    description:
      "One EU regulation, directive or decision by its CELEX number (32016R0679) with its English title, " +
      "type, dates, in-force flag, ELI and Cellar URI, or a search of English titles in our index built from " +
      "Cellar (case and diacritics folded). An act not cached yet answers 404 not_cached (not charged) and is " +
      "fetched within about a minute.",
    query: EuQuery,
    answer: EuLegislationAnswer,
    sample: { q: "protection of personal data" },
    source: {
      name: "Cellar SPARQL endpoint (publications.europa.eu)",
      url: "https://op.europa.eu/en/web/cellar",
      notice: EU_INFO.licence.notice,
    },
    act: { cacheFamily: EU_CACHE, queue: EU_ACT_QUEUE, what: (id) => `Act ${id} of EUR-Lex` },
    search: (ctx, q, query) => indexSearchAnswer<EuSearchItem>(ctx, EU_SEARCH, q, query.limit),
  });
}
