// GET /v1/gov/de/legislation: German federal law from our own index of gesetze-im-internet.de's table of
// contents: a title search (q) or one law by its GII id (id).
import { z } from "zod";
import { notFound } from "../../../../catalog/product.ts";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import type { Licence } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { legislationAnswer } from "../answers.ts";
import {
  type IndexedSearch,
  indexNotBuilt,
  indexSearchAnswer,
  searchLimitParameter,
} from "../index-search.ts";
import { legislationRoute } from "../route.ts";
import { DE_ACT_QUEUE } from "./job.ts";
import { type DeAct, parseDeId, searchItem } from "./normalise.ts";
import { GII_SPEC, TOC_PATH } from "./upstream.ts";
import { DE_CACHE, DE_INDEX, DE_INDEX_WARMER } from "./warmer.ts";

export const DE_INDEX_QUEUE = "gov.de.legislation.index";

/** GII states no licence for its XML: the answers say the terms are unclear (confirm before charging). */
const GII_TERMS: Licence = {
  name: "Official works without copyright (§ 5 UrhG); gesetze-im-internet.de states no licence for its XML: terms unclear",
  url: "https://www.gesetze-im-internet.de/hinweise.html",
  attribution:
    "Quelle: Bundesministerium der Justiz / Bundesamt für Justiz, www.gesetze-im-internet.de; abbreviation, ELI and dates of one law: NeuRIS, rechtsinformationen.bund.de (trial phase)",
  notice:
    "The terms of reuse of the GII data are not stated explicitly. Only the texts promulgated in the " +
    "Bundesgesetzblatt are authoritative.",
};

const DE_INFO: GovRouteInfo = {
  cc: "de",
  country: "Germany",
  family: "legislation",
  upstream: "gesetze-im-internet.de table of contents (gii-toc.xml), indexed by this service",
  licence: GII_TERMS,
  warmers: [DE_INDEX_WARMER],
};

const extras = {
  normId: z.string().describe("The law's id at gesetze-im-internet.de (its path, e.g. bgb)"),
  abbreviation: z
    .string()
    .nullable()
    .describe("Official abbreviation (null: GII's table of contents does not carry it)"),
  titleDe: z.string().describe("German title"),
};

const DeLegislationAnswer = legislationAnswer(extras, extras);

const DeQuery = lookupQuery({
  id: {
    describe: "One law by its gesetze-im-internet.de id (its path), e.g. bgb, estg, ao_1977",
    parse: parseDeId,
  },
  qDescribe:
    "Words of the German title or the GII id; case and umlauts folded (strasse finds Straße), words found inside compounds (datenschutz finds Bundesdatenschutzgesetz)",
  extra: searchLimitParameter,
});

const DE_SEARCH: IndexedSearch = {
  info: DE_INFO,
  collection: DE_INDEX,
  buildQueue: DE_INDEX_QUEUE,
  buildKey: "toc",
  building:
    "Our index of German federal law is being built from gesetze-im-internet.de; try again in about a minute.",
  source: (ctx) => ctx.upstreams.client(GII_SPEC).url({ path: TOC_PATH }),
};

export function deLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof DeQuery>, DeAct>({
    info: DE_INFO,
    summary: "German federal law (gesetze-im-internet.de): title search or one law",
    description:
      "A title search over our index of every federal law in gesetze-im-internet.de's daily table of contents " +
      "(umlauts and case folded, words found inside compounds), or one law by its GII id, completed with its " +
      "abbreviation, ELI and dates from NeuRIS where NeuRIS has it (a law not cached yet answers 404 not_cached, " +
      "not charged, and is fetched within about a minute). Only current law is listed by GII: a repealed law is " +
      "not found. GII's reuse terms are unclear (stated in every answer).",
    query: DeQuery,
    answer: DeLegislationAnswer,
    sample: { q: "Datenschutz" },
    source: { name: "gesetze-im-internet.de (gii-toc.xml)", url: "https://www.gesetze-im-internet.de/" },
    act: { cacheFamily: DE_CACHE, queue: DE_ACT_QUEUE, what: (id) => `Law ${id} of gesetze-im-internet.de` },
    // Only laws in the index exist: the index must be built, and an id not in it is not found.
    check: async (query, ctx) => {
      const index = GovTitleIndex.of(ctx.store);
      if ((await index.liveGeneration(DE_INDEX)) === undefined) return indexNotBuilt(ctx, DE_SEARCH);
      if (query.id && !(await index.get<DeAct>(DE_INDEX, query.id))) {
        return notFound(
          `No law ${query.id} in gesetze-im-internet.de's current table of contents (unknown, or repealed: repealed laws drop out).`,
          { id: query.id },
        );
      }
      return undefined;
    },
    search: (ctx, q, query) => indexSearchAnswer(ctx, DE_SEARCH, q, query.limit, searchItem),
  });
}
