// GET /v1/gov/ch/legislation: one act of the Swiss classified compilation by SR number or ELI (cached, read
// from Fedlex SPARQL by a job) or a title search of our index "leg-ch" (German, French and Italian titles).
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import type { Licence } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { type IndexedSearch, indexSearchAnswer, searchLimitParameter } from "../index-search.ts";
import { legislationRoute } from "../route.ts";
import { type ChAct, type ChSearchItem, parseChId } from "./normalise.ts";
import { FEDLEX_SPEC, SPARQL_PATH } from "./upstream.ts";
import { CH_INDEX, CH_INDEX_WARMER } from "./warmer.ts";

export const CH_ACT_QUEUE = "gov.ch.legislation.act";
export const CH_INDEX_QUEUE = "gov.ch.legislation.index";
export const CH_CACHE = "gov-leg-ch";

/** Fedlex's terms (specific to this upstream, so kept beside it). */
const FEDLEX_TERMS: Licence = {
  name: "Swiss federal enactments are not protected by copyright (Art. 5 URG); Fedlex data free to reuse",
  url: "https://fedlex.data.admin.ch/",
  attribution: "Source: Fedlex, Swiss Federal Chancellery (www.fedlex.admin.ch)",
  notice:
    "This is not an official publication. Only the publication by the Federal Chancellery is legally binding " +
    "(Publications Act, SR 170.512).",
};

const CH_INFO: GovRouteInfo = {
  cc: "ch",
  country: "Switzerland",
  family: "legislation",
  upstream: "Fedlex SPARQL (JOLux) and ELI, title index built by this service",
  licence: FEDLEX_TERMS,
  warmers: [CH_INDEX_WARMER],
};

const extras = {
  srNumber: z.string().nullable().describe("Number in the classified compilation (SR), e.g. 235.1"),
  shortTitle: z.string().nullable().describe("German short title or abbreviation, e.g. DSG"),
  aliases: z.array(z.string()).describe("French and Italian titles and abbreviations"),
};

const ChLegislationAnswer = legislationAnswer(extras, extras);

const ChQuery = lookupQuery({
  id: {
    describe:
      "One act by SR number (235.1; a reused number names the act in force) or by ELI (eli/cc/2022/491, or its Fedlex URL)",
    parse: parseChId,
  },
  qDescribe:
    "Words of the act's German, French or Italian title, its abbreviation or SR number; case and diacritics " +
    "folded, words found inside compounds (gewasserschutz finds Gewässerschutzgesetz)",
  extra: searchLimitParameter,
});

const CH_SEARCH: IndexedSearch = {
  info: CH_INFO,
  collection: CH_INDEX,
  buildQueue: CH_INDEX_QUEUE,
  buildKey: "index",
  building: "Our index of Swiss federal law is being loaded from Fedlex; try again in about a minute.",
  source: (ctx) => ctx.upstreams.client(FEDLEX_SPEC).url({ path: SPARQL_PATH }),
};

export function chLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof ChQuery>, ChAct>({
    info: CH_INFO,
    summary: "Swiss federal legislation (Fedlex): one act by SR number or ELI, or a title search",
    description:
      "One act of the Swiss classified compilation by SR number (235.1) or ELI with its German title, short " +
      "title, French and Italian aliases, status and dates, or a search of our index of SR titles loaded from " +
      "Fedlex (refreshed monthly). An act's existence is checked by SPARQL, never by the website (which " +
      "answers 200 for any ELI). An act not cached yet answers 404 not_cached (not charged) and is fetched " +
      "within about a minute.",
    query: ChQuery,
    answer: ChLegislationAnswer,
    sample: { q: "Datenschutz" },
    source: { name: "Fedlex SPARQL endpoint", url: "https://fedlex.data.admin.ch/en-CH/sparql" },
    act: { cacheFamily: CH_CACHE, queue: CH_ACT_QUEUE, what: (id) => `Act ${id} of Fedlex` },
    search: (ctx, q, query) => indexSearchAnswer<ChSearchItem>(ctx, CH_SEARCH, q, query.limit),
  });
}
