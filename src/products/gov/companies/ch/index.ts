// Switzerland: GET /v1/gov/ch/companies — `q` the start of a company name, or `id` a UID (CHE-123.456.789,
// check digit validated) or a Zefix EHRA-ID; and the free GET /v1/gov/ch/companies/status.
import { badRequest } from "../../../../catalog/product.ts";
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { lookupQuery } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { companyRoute } from "../register.ts";
import { parseSwissCompanyId } from "./identifiers.ts";
import { CH_INFO } from "./info.ts";
import { ChExtrasShape, ChItemExtrasShape } from "./normalise.ts";
import { chStatusProduct } from "./status.ts";
import {
  CH_MAX_MATCHES,
  CH_MIN_QUERY,
  lookupChCompany,
  searchChCompanies,
  zefixCredentials,
  zefixNotConfigured,
} from "./upstream.ts";

export const chCompanies: CountryModuleFactory = (config) => {
  const credentials = zefixCredentials(config.env);
  const { route, jobs } = companyRoute({
    info: CH_INFO,
    upstreamUrl: "https://www.zefix.admin.ch/ZefixPublicREST/",
    summary: "Swiss companies: name search, UID or EHRA-ID (Zefix)",
    description:
      `A search of Zefix, Switzerland's central business name index, by the start of the name (q, at least ` +
      `${CH_MIN_QUERY} characters, * a wildcard; up to ${CH_MAX_MATCHES} matches), or one company by its UID ` +
      "(id, CHE-123.456.789, check digit validated before payment) or Zefix EHRA-ID: legal form, status with " +
      "what it means, seat and address, purpose, nominal capital, the name in other languages, earlier names, " +
      "the latest SOGC publications and links to Zefix and the cantonal excerpt. Searches are asked live and " +
      "cached for 12 hours; a company not cached yet answers 404 (not charged) and is fetched within about a " +
      "minute. Zefix holds no officers; none are served.",
    query: lookupQuery({
      id: {
        describe: "One company: its UID (CHE-123.456.789) or Zefix EHRA-ID",
        parse: (raw) => parseSwissCompanyId(raw),
      },
      qDescribe: `The start of the company name (at least ${CH_MIN_QUERY} characters; * is a wildcard)`,
    }),
    sample: { q: "migros" },
    answer: companyAnswer(ChExtrasShape, ChItemExtrasShape),
    pick: (query: { q?: string; id?: string }) =>
      query.id !== undefined ? { id: query.id } : { q: query.q as string },
    parseId: (raw) => parseSwissCompanyId(raw),
    what: (id) => `The company ${id} in Zefix`,
    lookup: (ctx, id) => lookupChCompany(ctx, credentials, id),
    search: (ctx, q) => searchChCompanies(ctx, credentials, q),
    async check({ query }, ctx) {
      if (ctx.upstreams.mode === "live" && !credentials) return zefixNotConfigured();
      if (query.q !== undefined && query.q.replace(/\*/g, "").length < CH_MIN_QUERY) {
        return badRequest(
          "q",
          `q must have at least ${CH_MIN_QUERY} characters besides wildcards (Zefix's rule)`,
        );
      }
      return undefined;
    },
  });
  return { cc: "ch", products: [route, chStatusProduct(credentials !== undefined)], jobs };
};
