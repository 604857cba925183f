// GET /v1/gov/pl/legislation: one act by ELI (cached, fetched by a job) or a title search of the Sejm ELI API.
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import type { Licence } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import { normaliseSearch, type PlAct, parsePlId, type SejmSearch } from "./normalise.ts";
import { SEJM_ELI_SPEC, searchActs } from "./upstream.ts";

export const PL_SKU = "gov.pl.legislation";
export const PL_ACT_QUEUE = "gov.pl.legislation.act";
export const PL_CACHE = "gov-leg-pl";
const PL_SEARCH_CACHE = "gov-leg-pl-search";

/** The Sejm's terms for the acts it publishes (specific to this upstream, so kept beside it). */
const POLISH_PUBLIC_INFORMATION: Licence = {
  name: "Public information; official legal acts are not protected by copyright (art. 4 of the Polish Copyright Act)",
  url: "https://api.sejm.gov.pl/eli/openapi/ui",
  attribution: "Source: Kancelaria Sejmu, Internetowy System Aktów Prawnych (ISAP), ELI API api.sejm.gov.pl",
  notice: "Only the texts published in Dziennik Ustaw and Monitor Polski are legally binding.",
};

const PL_INFO: GovRouteInfo = {
  cc: "pl",
  country: "Poland",
  family: "legislation",
  upstream: "Sejm ELI API (ISAP, Kancelaria Sejmu)",
  licence: POLISH_PUBLIC_INFORMATION,
  warmers: [],
};

const keywords = z.array(z.string()).nullable().describe("ISAP keywords of the act (null where not given)");

const PlLegislationAnswer = legislationAnswer({ keywords }, { keywords });

const PlQuery = lookupQuery({
  id: {
    describe:
      "One act by its ELI, publisher/year/position: DU/2018/1000 (also WDU20180001000 or Dz.U. 2018 poz. 1000)",
    parse: parsePlId,
  },
  qDescribe: "Words of the act's Polish title, searched by the Sejm ELI API, e.g. ochronie danych osobowych",
});

export function plLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof PlQuery>, PlAct>({
    info: PL_INFO,
    summary: "Polish legislation (Sejm ELI API): one act or a title search",
    description:
      "One act of Dziennik Ustaw or Monitor Polski by its ELI (DU/2018/1000) with its status, in-force flag, " +
      "dates and ISAP keywords, or a search of act titles (Polish, diacritics as written). An act not cached " +
      "yet answers 404 not_cached (not charged) and is fetched within about a minute.",
    query: PlQuery,
    answer: PlLegislationAnswer,
    sample: { q: "ochronie danych osobowych" },
    source: {
      name: "Sejm ELI API (api.sejm.gov.pl/eli)",
      url: "https://api.sejm.gov.pl/eli/openapi/ui",
      notice: PL_INFO.licence.notice,
    },
    act: { cacheFamily: PL_CACHE, queue: PL_ACT_QUEUE, what: (id) => `Act ${id} of the Sejm ELI API` },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, PL_INFO, q, {
        cacheFamily: PL_SEARCH_CACHE,
        query: q,
        upstream: "The Sejm ELI API",
        fetch: () => searchActs<SejmSearch>(ctx.upstreams.client(SEJM_ELI_SPEC), q),
        normalise: (page) => normaliseSearch(page.json),
      }),
  });
}
