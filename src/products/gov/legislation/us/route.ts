// GET /v1/gov/us/legislation: one CFR section by id (cached, fetched by a job) or a search of the eCFR.
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import {
  citationOf,
  type EcfrSearchResponse,
  normaliseSearch,
  parseUsId,
  splitUsId,
  type UsAct,
} from "./normalise.ts";
import { ECFR_SPEC, searchSections } from "./upstream.ts";

export const US_SKU = "gov.us.legislation";
export const US_ACT_QUEUE = "gov.us.legislation.act";
export const US_CACHE = "gov-leg-us";
const US_SEARCH_CACHE = "gov-leg-us-search";

const US_INFO: GovRouteInfo = {
  cc: "us",
  country: "United States",
  family: "legislation",
  upstream: "eCFR API (Electronic Code of Federal Regulations), search and versioner services",
  licence: LICENCES.ecfr(),
  warmers: [],
};

const extras = {
  titleName: z.string().nullable().describe("Name of the CFR title (e.g. Food and Drugs)"),
  partName: z.string().nullable().describe("Heading of the CFR part"),
  agency: z.string().nullable().describe("Issuing agency of the chapter, from eCFR's agency list"),
};

const UsLegislationAnswer = legislationAnswer(extras, {
  titleName: extras.titleName,
  partName: extras.partName,
  excerpt: z.string().nullable().describe("Matching text excerpt, highlights removed"),
});

/** legislationAnswer() does not carry the extras in its static type: the parsed answer with them. */

const UsQuery = lookupQuery({
  id: {
    describe: "One CFR section as title/part/section, e.g. 21/11/11.1 (the citation 21 CFR 11.1 is accepted)",
    parse: parseUsId,
  },
  qDescribe: "Full-text search of the current eCFR (eCFR search API), e.g. electronic records",
});

export function usLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof UsQuery>, UsAct>({
    info: US_INFO,
    summary: "US federal regulations (eCFR): one CFR section or a search",
    description:
      "One section of the Code of Federal Regulations by id (title/part/section) with its title and part names " +
      "and issuing agency, or a search of the current eCFR. An id not cached yet answers 404 not_cached " +
      "(not charged) and is fetched within about a minute. The eCFR is not an official legal edition of the CFR.",
    query: UsQuery,
    answer: UsLegislationAnswer,
    sample: { q: "electronic records" },
    source: {
      name: "eCFR API, Office of the Federal Register",
      url: "https://www.ecfr.gov/developers/documentation/api/v1",
      notice: US_INFO.licence.notice,
    },
    act: {
      cacheFamily: US_CACHE,
      queue: US_ACT_QUEUE,
      key: (id) => splitUsId(id).id,
      what: (id) => `Section ${citationOf(splitUsId(id))} of the eCFR`,
    },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, US_INFO, q, {
        cacheFamily: US_SEARCH_CACHE,
        query: q,
        upstream: "The eCFR search API",
        fetch: () => searchSections<EcfrSearchResponse>(ctx.upstreams.client(ECFR_SPEC), q),
        normalise: (page) => normaliseSearch(page.json),
      }),
  });
}
