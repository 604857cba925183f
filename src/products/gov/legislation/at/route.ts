// GET /v1/gov/at/legislation: one Austrian federal act by its Gesetzesnummer (cached, fetched by a job) or a
// title search of RIS (provisions valid today, grouped into acts), fetched inside the paid call.
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import { type AtAct, groupSearch, parseAtId, parseRisPage } from "./normalise.ts";
import { RIS_SPEC, searchTitles } from "./upstream.ts";

export const AT_SKU = "gov.at.legislation";
export const AT_ACT_QUEUE = "gov.at.legislation.act";
export const AT_CACHE = "gov-leg-at";
const AT_SEARCH_CACHE = "gov-leg-at-search";
export const AT_HISTORY_WARMER = "gov.at.legislation.history";

const AT_INFO: GovRouteInfo = {
  cc: "at",
  country: "Austria",
  family: "legislation",
  upstream: "RIS OGD API v2.6 (Bundesrecht, BrKons)",
  licence: LICENCES.ccBy40("Datenquelle: RIS – https://www.ris.bka.gv.at/"),
  // Live after a good fetch: the change feed only refreshes what is cached.
  warmers: [],
};

const extras = {
  shortTitle: z.string().nullable().describe("Kurztitel, e.g. Mietrechtsgesetz"),
  abbreviation: z.string().nullable().describe("Abkürzung, e.g. MRG"),
  publishedIn: z
    .string()
    .nullable()
    .describe("Original promulgation (Kundmachungsorgan), e.g. BGBl. Nr. 520/1981"),
};

const AtLegislationAnswer = legislationAnswer(extras, extras);

const AtQuery = lookupQuery({
  id: {
    describe: "One federal act by its 8-digit RIS Gesetzesnummer, e.g. 10002531 (or its RIS URL)",
    parse: parseAtId,
  },
  qDescribe: "Words of the act's German title, searched by RIS, e.g. Mietrechtsgesetz or Ärztegesetz",
});

/** RIS's title field has a query grammar: its operators' characters are dropped, the words kept. */
function risTitel(q: string): string {
  return q
    .toLowerCase()
    .replace(/["'()[\]{}*?~^!\\]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function atLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof AtQuery>, AtAct>({
    info: AT_INFO,
    summary: "Austrian federal legislation (RIS): one act or a title search",
    description:
      "One Austrian federal act by its Gesetzesnummer (10002531) with title, short title, abbreviation, " +
      "original promulgation, in-force status and dates, or a search of the titles of acts in force today " +
      "(RIS hits are provisions; they are grouped into acts). An act not cached yet answers 404 not_cached " +
      "(not charged) and is fetched within about a minute.",
    query: AtQuery,
    answer: AtLegislationAnswer,
    sample: { q: "Mietrechtsgesetz" },
    source: { name: "RIS OGD API v2.6 (data.bka.gv.at)", url: "https://data.bka.gv.at/ris/api/v2.6/" },
    act: { cacheFamily: AT_CACHE, queue: AT_ACT_QUEUE, what: (id) => `Act ${id} of Austria's RIS` },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, AT_INFO, q, {
        cacheFamily: AT_SEARCH_CACHE,
        query: risTitel(q),
        keepDiacritics: true,
        upstream: "Austria's RIS",
        fetch: () => searchTitles(ctx.upstreams.client(RIS_SPEC), risTitel(q)),
        // RIS counts provisions, not acts: the number of acts matching is not known.
        normalise: (page) => ({ totalCount: null, items: groupSearch(parseRisPage(page.json)) }),
      }),
  });
}
