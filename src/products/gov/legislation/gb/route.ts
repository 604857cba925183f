// GET /v1/gov/gb/legislation: one act by its legislation.gov.uk id (cached, fetched by a job) or a title search
// of legislation.gov.uk's Atom feed, fetched inside the paid call.
import { z } from "zod";
import { type ErrorOutcome, ok } from "../../../../catalog/product.ts";
import type { Config } from "../../../../config.ts";
import { errorOutcome } from "../../../../errors.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES, type Licence } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { actAnswer, legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import {
  type GbAct,
  type GbAmbiguous,
  isAmbiguous,
  normaliseSearchFeed,
  parseGbId,
  rankByTitleMatch,
} from "./normalise.ts";
import { LEGISLATION_GOV_UK_SPEC, searchTitles } from "./upstream.ts";

export const GB_SKU = "gov.gb.legislation";
export const GB_ACT_QUEUE = "gov.gb.legislation.act";
export const GB_NEW_ITEMS_WARMER = "gov.gb.legislation.new-items";
export const GB_CACHE = "gov-leg-gb";
const GB_SEARCH_CACHE = "gov-leg-gb-search";
/** Hits answered, the best title matches of the page asked of the feed. */
const SEARCH_ANSWERED = 20;

const GB_LICENCE: Licence = {
  ...LICENCES.oglV3(
    "© Crown and database right. Derived from content available under the Open Government Licence v3.0 " +
      "from legislation.gov.uk",
  ),
  notice:
    "EU-origin legislation is also subject to the EUR-Lex reuse notice (© European Union); pre-1987 statutory " +
    "instruments published by Westlaw carry the attribution “Westlaw UK derived from Crown Copyright material”.",
};

const GB_INFO: GovRouteInfo = {
  cc: "gb",
  country: "United Kingdom",
  family: "legislation",
  upstream: "legislation.gov.uk (The National Archives): Atom search and CLML data.xml",
  licence: GB_LICENCE,
  warmers: [GB_NEW_ITEMS_WARMER],
};

const extras = {
  description: z.string().nullable().describe("The act's long title or explanatory description"),
  year: z.number().int().nullable().describe("Calendar year of enactment or making"),
  inForceNote: z.string().describe("Why inForce is what it is: legislation.gov.uk marks repeals only"),
  extent: z
    .string()
    .nullable()
    .describe("Geographical extent as legislation.gov.uk writes it (E+W+S+N.I., S, …); null when not given"),
};
const itemExtras = { description: extras.description, year: extras.year };

const GbLegislationAnswer = legislationAnswer(extras, itemExtras);

const GbQuery = lookupQuery({
  id: {
    describe:
      "One act by its legislation.gov.uk id type/year/number, e.g. ukpga/2018/12, or for acts before 1963 " +
      "type/regnal year/number, e.g. ukpga/Geo5/4-5/1 (or its URL)",
    parse: parseGbId,
  },
  qDescribe:
    "Words of the act's title, searched by legislation.gov.uk, e.g. data protection; hits ranked by title match",
});

/**
 * An id that names several acts (legislation.gov.uk's 300 Multiple Choices, e.g. ukpga/1914/1): 409 with the
 * acts it may mean, each with its own id to ask for; not charged.
 */
function ambiguousId(id: string, ambiguous: GbAmbiguous): ErrorOutcome {
  return errorOutcome(
    "ambiguous_id",
    `legislation.gov.uk says ${id} names ${ambiguous.choices.length} acts; ask again with one of the ids in choices.`,
    { parameter: "id", id, choices: ambiguous.choices },
  );
}

export function gbLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof GbQuery>, GbAct | GbAmbiguous>({
    info: GB_INFO,
    summary: "UK legislation (legislation.gov.uk): one act or a title search",
    description:
      "One act of the UK, Scottish, Welsh or Northern Irish legislatures (or a statutory instrument) by its " +
      "legislation.gov.uk id (ukpga/2018/12) with its type, citation, dates, extent and repeal status, or a " +
      "title search (hits ranked by title match; totalCount from the feed's type facets). inForce is false " +
      "only when the act is marked repealed, otherwise null (inForceNote says why). Acts before 1963 have " +
      "regnal-year ids (ukpga/Geo5/4-5/1); an id naming several acts answers 409 ambiguous_id with its " +
      "choices. An act not cached yet answers 404 not_cached and is fetched within about a minute; neither " +
      "is charged.",
    query: GbQuery,
    answer: GbLegislationAnswer,
    sample: { q: "data protection" },
    source: {
      name: "legislation.gov.uk",
      url: "https://www.legislation.gov.uk/developer",
      notice: GB_LICENCE.notice,
    },
    act: {
      cacheFamily: GB_CACHE,
      queue: GB_ACT_QUEUE,
      what: (id) => `Act ${id} of legislation.gov.uk`,
      answer: (doc, query) => {
        const body = doc.body;
        if (isAmbiguous(body)) return ambiguousId(query.id as string, body);
        return ok(actAnswer(GB_INFO, { ...doc, body }));
      },
    },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, GB_INFO, q, {
        cacheFamily: GB_SEARCH_CACHE,
        query: q.toLowerCase(),
        keepDiacritics: true,
        upstream: "legislation.gov.uk",
        fetch: () => searchTitles(ctx.upstreams.client(LEGISLATION_GOV_UK_SPEC), q.toLowerCase()),
        normalise: (page) => {
          const found = normaliseSearchFeed(page.xml);
          return {
            totalCount: found.totalCount,
            items: rankByTitleMatch(found.items, q).slice(0, SEARCH_ANSWERED),
          };
        },
      }),
  });
}
