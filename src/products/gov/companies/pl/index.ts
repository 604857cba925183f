// Poland: GET /v1/gov/pl/companies — `q` a name (or part of it, a NIP or a REGON) searched in our own index of
// the KRS, or `id` a KRS number; and the free GET /v1/gov/pl/companies/status.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { lookupQuery } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { type Ctx, companyQueue, companyRoute } from "../register.ts";
import { plBulletinWarmer } from "./bulletin.ts";
import { parseKrs } from "./identifiers.ts";
import { PL_INFO } from "./info.ts";
import { indexCompany, PL_MAX_MATCHES, searchPlIndex } from "./name-index.ts";
import { PlExtrasShape, PlItemExtrasShape } from "./normalise.ts";
import { plStatusProduct } from "./status.ts";
import { lookupPlCompany } from "./upstream.ts";

/** Every entity fetched joins the name index (or replaces its entry there). */
async function lookupAndIndex(ctx: Ctx, krs: string) {
  const found = await lookupPlCompany(ctx, krs);
  if (found.found) await indexCompany(ctx, found.company);
  return found;
}

export const plCompanies: CountryModuleFactory = () => {
  const { route, jobs } = companyRoute({
    info: PL_INFO,
    upstreamUrl: "https://prs.ms.gov.pl/krs/openApi",
    summary: "Polish companies: KRS number, or a name in our index of the KRS",
    description:
      "One entity of Poland's National Court Register (KRS) by its KRS number (id, 10 digits; businesses and " +
      "associations alike): legal form, status (active, in liquidation, in bankruptcy, deleted), NIP and REGON, " +
      "seat and address, share capital, PKD objects of business, earlier names with the dates of their entries. " +
      `Or a name search (q, up to ${PL_MAX_MATCHES} matches; a NIP or REGON also matches) over our own index: ` +
      "the KRS has no name search, so the index holds every entity looked up and every one the daily KRS " +
      "bulletin lists as changed; no match is a 404, not charged. An entity not cached yet answers 404 (not " +
      "charged) and is fetched within about a minute. Company facts only: no board members or shareholders.",
    query: lookupQuery({
      id: { describe: "One entity: its KRS number, 10 digits", parse: (raw) => parseKrs(raw) },
      qDescribe: "Name (or part of it), NIP or REGON, searched in our index of the KRS",
    }),
    sample: { id: "0000019193" },
    answer: companyAnswer(PlExtrasShape, PlItemExtrasShape),
    pick: (query: { q?: string; id?: string }) =>
      query.id !== undefined ? { id: query.id } : { q: query.q as string },
    parseId: (raw) => parseKrs(raw),
    what: (id) => `The entity with KRS number ${id}`,
    lookup: lookupAndIndex,
  });
  const byId = route.handle;
  const plRoute: typeof route = {
    ...route,
    async handle(input, ctx) {
      if (input.query.q === undefined) return byId(input, ctx);
      const found = await searchPlIndex(ctx, PL_INFO, input.query.q);
      return found.ok ? { status: 200, body: found.body } : found.outcome;
    },
  };
  return {
    cc: "pl",
    products: [plRoute, plStatusProduct()],
    warmers: [plBulletinWarmer(companyQueue(PL_INFO))],
    jobs,
  };
};
