// GET /v1/gov/jp/legislation: one law by law id or number (cached, fetched by a job) or a title search of
// the e-Gov law API v2.
import { z } from "zod";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import { lookupQuery } from "../../shared/query.ts";
import { legislationAnswer } from "../answers.ts";
import { liveSearchAnswer } from "../live-search-answer.ts";
import { legislationRoute } from "../route.ts";
import { type EgovLaws, type JpAct, normaliseSearch, parseJpId } from "./normalise.ts";
import { EGOV_SPEC, searchLaws } from "./upstream.ts";

export const JP_SKU = "gov.jp.legislation";
export const JP_ACT_QUEUE = "gov.jp.legislation.act";
export const JP_CACHE = "gov-leg-jp";
const JP_SEARCH_CACHE = "gov-leg-jp-search";

const JP_INFO: GovRouteInfo = {
  cc: "jp",
  country: "Japan",
  family: "legislation",
  upstream: "e-Gov 法令API Version 2 (Digital Agency)",
  licence: LICENCES.pdl10(
    "出典：e-Gov法令検索（https://laws.e-gov.go.jp/）。Reshaped (selected fields, English field names) by this service.",
  ),
  warmers: [],
};

const extras = {
  titleKana: z.string().nullable().describe("Reading of the title in hiragana (法令名読み)"),
  category: z.string().nullable().describe("Subject classification (事項別分類), e.g. 民事"),
  revisionStatus: z
    .string()
    .nullable()
    .describe("e-Gov current_revision_status: CurrentEnforced, PreviousEnforced, UnEnforced or Repeal"),
};
const revisionNote = z
  .string()
  .nullable()
  .describe("The amending law of the current version (title and number), with e-Gov's enforcement comment");

const JpLegislationAnswer = legislationAnswer({ ...extras, revisionNote }, extras);

const JpQuery = lookupQuery({
  id: {
    describe: "One law by its e-Gov law id (129AC0000000089) or its law number (明治二十九年法律第八十九号)",
    parse: parseJpId,
  },
  qDescribe: "Part of the law's Japanese title or abbreviation (e-Gov law_title), e.g. 民法",
});

export function jpLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof JpQuery>, JpAct>({
    info: JP_INFO,
    summary: "Japanese legislation (e-Gov law API v2): one law or a title search",
    description:
      "One Japanese law by law id or law number with its kana reading, subject category, revision status and " +
      "repeal state, or a search of titles and abbreviations (Japanese). A law not cached yet answers 404 " +
      "not_cached (not charged) and is fetched within about a minute.",
    query: JpQuery,
    answer: JpLegislationAnswer,
    sample: { q: "民法" },
    source: { name: "e-Gov 法令API Version 2", url: "https://laws.e-gov.go.jp/api/2/swagger-ui/" },
    act: { cacheFamily: JP_CACHE, queue: JP_ACT_QUEUE, what: (id) => `Law ${id} of e-Gov` },
    search: (ctx, q) =>
      liveSearchAnswer(ctx, JP_INFO, q, {
        cacheFamily: JP_SEARCH_CACHE,
        query: q,
        upstream: "The e-Gov law API",
        fetch: () => searchLaws<EgovLaws>(ctx.upstreams.client(EGOV_SPEC), q),
        normalise: (page) => normaliseSearch(page.json, page.url),
      }),
  });
}
