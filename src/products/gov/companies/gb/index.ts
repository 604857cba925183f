// United Kingdom: GET /v1/gov/gb/companies — `companyNumber` (alias `number`) or `q` a name; and the free
// GET /v1/gov/gb/companies/coverage and /status.
import { z } from "zod";
import type { ErrorOutcome } from "../../../../catalog/product.ts";
import { hasControlCharacters } from "../../../../catalog/text-guard.ts";
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { freeText } from "../../shared/query.ts";
import { companyAnswer } from "../answers.ts";
import { parseUkCompanyNumber } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { gbCoverageProduct, gbStatusProduct } from "./free.ts";
import { GB_INFO } from "./info.ts";
import { GbExtrasShape, GbItemExtrasShape } from "./normalise.ts";
import { CH_KEY_SETTING, companiesHouseKey, lookupGbCompany, searchGbCompanies } from "./upstream.ts";

export { GB_INFO };

export const GbQuery = z
  .object({
    companyNumber: z
      .string({ error: "companyNumber must be text" })
      .refine((value) => !hasControlCharacters(value), {
        message: "companyNumber must not contain control characters",
      })
      .transform((raw, ctx) => {
        const parsed = parseUkCompanyNumber(raw.trim());
        if ("error" in parsed) {
          ctx.addIssue({ code: "custom", message: parsed.error });
          return z.NEVER;
        }
        return parsed.id;
      })
      .optional()
      .describe("One company: its Companies House number (8 characters; shorter numbers are zero-padded)"),
    q: freeText("q").optional().describe("Company name (or part of it)"),
  })
  .superRefine((query, ctx) => {
    if (query.q === undefined && query.companyNumber === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["q"],
        message: "give q (a name search) or companyNumber (one company)",
      });
    } else if (query.q !== undefined && query.companyNumber !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["companyNumber"],
        message: "give either q or companyNumber, not both",
      });
    }
  });

/** Live mode without the key: refused before payment, as a disabled family's routes are (per route here). */
export function missingKey(): ErrorOutcome {
  return {
    status: 503,
    body: {
      error: "not_configured",
      message: `The UK company register is disabled on this server: ${CH_KEY_SETTING} is not set. Nothing was charged.`,
      charged: false,
      family: "gov-companies",
      reason: `${CH_KEY_SETTING} is not set.`,
      fix: `Register a free API key at https://developer.company-information.service.gov.uk/ and set ${CH_KEY_SETTING}.`,
      docs: "https://developer.company-information.service.gov.uk/get-started",
    },
  };
}

export const gbCompanies: CountryModuleFactory = () => {
  const { route, jobs } = companyRoute({
    info: GB_INFO,
    upstreamUrl: "https://developer.company-information.service.gov.uk/",
    summary: "UK companies: name search or company number (Companies House)",
    description:
      "A name search over the Companies House register (q, up to 20 matches) or one company by its number " +
      "(companyNumber, alias number): status, type, dates, registered office, SIC codes, accounts and " +
      "confirmation statement due dates, charges and insolvency flags, earlier names. Searches are asked live " +
      "and cached for 12 hours; a company not cached yet answers 404 (not charged) and is fetched within about " +
      "a minute. Company facts only: no officers or persons with significant control.",
    query: GbQuery,
    aliases: { number: "companyNumber" },
    sample: { q: "tesco" },
    answer: companyAnswer(GbExtrasShape, GbItemExtrasShape),
    pick: (query: z.infer<typeof GbQuery>) =>
      query.companyNumber !== undefined ? { id: query.companyNumber } : { q: query.q as string },
    parseId: (raw) => parseUkCompanyNumber(raw),
    what: (id) => `Company ${id} at Companies House`,
    lookup: lookupGbCompany,
    search: searchGbCompanies,
    check: async (_input, ctx) =>
      ctx.upstreams.mode === "live" && !companiesHouseKey(ctx.config.env) ? missingKey() : undefined,
  });
  return { cc: "gb", products: [route, gbCoverageProduct(), gbStatusProduct()], jobs };
};
