// GET /v1/gov/au/legislation: one Commonwealth act or instrument by its register id (cached, fetched by a job)
// or a title search of the Federal Register of Legislation, fetched inside the paid call.
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import { type AuAct, normaliseSearch, parseAuId, searchWordsOf } from "./normalise.ts";
import { FRL_SPEC, searchTitles } from "./upstream.ts";

export const AU_SKU = "gov.au.legislation";
export const AU_ACT_QUEUE = "gov.au.legislation.act";
export const AU_CACHE = "gov-leg-au";
const AU_SEARCH_CACHE = "gov-leg-au-search";

const AU_INFO: GovRouteInfo = {
  cc: "au",
  country: "Australia",
  family: "legislation",
  upstream: "Federal Register of Legislation (legislation.gov.au) OData API",
  licence: LICENCES.ccBy40(
    "© Commonwealth of Australia. Sourced from the Federal Register of Legislation at https://www.legislation.gov.au",
  ),
  warmers: [],
};

const principal = z
  .boolean()
  .nullable()
  .describe("True for a principal act or instrument, false for an amending one (null when not given)");

const AuLegislationAnswer = legislationAnswer({ principal }, { principal });

const AuQuery = lookupQuery({
  id: {
    describe: "One title by its Federal Register of Legislation id, e.g. C2004A03712 (Privacy Act 1988)",
    parse: parseAuId,
  },
  qDescribe:
    "Words of the title (each must appear; former names match too), searched by the register, e.g. privacy",
});

export function auLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof AuQuery>, AuAct>({
    info: AU_INFO,
    summary: "Australian Commonwealth legislation (Federal Register of Legislation): one title or a search",
    description:
      "One Commonwealth act, instrument or compilation by its register id (C2004A03712) with its collection, " +
      "status, in-force flag, dates and whether it is a principal act, or a title search (names and former " +
      "names). An act not cached yet answers 404 not_cached (not charged) and is fetched within about a minute.",
    query: AuQuery,
    answer: AuLegislationAnswer,
    sample: { q: "privacy" },
    source: {
      name: "Federal Register of Legislation API (api.prod.legislation.gov.au)",
      url: "https://www.legislation.gov.au/",
    },
    act: {
      cacheFamily: AU_CACHE,
      queue: AU_ACT_QUEUE,
      what: (id) => `Title ${id} of the Federal Register of Legislation`,
    },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, AU_INFO, q, {
        cacheFamily: AU_SEARCH_CACHE,
        query: searchWordsOf(q).join(" "),
        keepDiacritics: true,
        upstream: "The Federal Register of Legislation",
        fetch: () => searchTitles(ctx.upstreams.client(FRL_SPEC), searchWordsOf(q)),
        normalise: (page) => normaliseSearch(page.json),
      }),
  });
}
