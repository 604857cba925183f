// United Kingdom: GET /v1/gov/gb/companies — `companyNumber` (alias `number`) or `q` a name; and the free
// GET /v1/gov/gb/companies/coverage and /status. Names are searched in our index of the monthly snapshot
// (snapshot.ts) once loaded, so that the API's shared budget (600 requests per 5 minutes) goes to company
// detail; before the first import (a fresh install) they are asked of the API as before.
import { z } from "zod";
import { type ErrorOutcome, notConfigured, ok } from "../../../../catalog/product.ts";
import { hasControlCharacters } from "../../../../catalog/text-guard.ts";
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { freeText } from "../../shared/query.ts";
import { companyAnswer, searchAnswer } from "../answers.ts";
import { parseUkCompanyNumber } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { gbCoverageProduct, gbStatusProduct } from "./free.ts";
import { GB_INFO } from "./info.ts";
import { GbExtrasShape, GbItemExtrasShape } from "./normalise.ts";
import { searchSnapshot } from "./snapshot.ts";
import { gbSnapshotWarmer } from "./snapshot-warmer.ts";
import { CH_KEY_SETTING, companiesHouseKey, lookupGbCompany, searchGbCompanies } from "./upstream.ts";

const GbQuery = z
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
function missingKey(): ErrorOutcome {
  return notConfigured("The UK company register is", "gov-companies", {
    reason: `${CH_KEY_SETTING} is not set.`,
    fix: `Register a free API key at https://developer.company-information.service.gov.uk/ and set ${CH_KEY_SETTING}.`,
    docs: "https://developer.company-information.service.gov.uk/get-started",
  });
}

export const gbCompanies: CountryModuleFactory = (config) => {
  const key = companiesHouseKey(config.env);
  const { route, jobs } = companyRoute({
    info: GB_INFO,
    upstreamUrl: "https://developer.company-information.service.gov.uk/",
    summary: "UK companies: name search or company number (Companies House)",
    description:
      "A name search over the Companies House register (q, up to 20 matches) or one company by its number " +
      "(companyNumber, alias number): status, type, dates, registered office, SIC codes, accounts and " +
      "confirmation statement due dates, charges and insolvency flags, earlier names. Names are searched in " +
      "our index of Companies House's monthly snapshot of live companies (current and earlier names) once it " +
      "is loaded, otherwise asked of the API live and cached for 12 hours; a company not cached yet answers " +
      "404 (not charged) and is fetched within about a minute. Company facts only: no officers or persons " +
      "with significant control.",
    query: GbQuery,
    aliases: { number: "companyNumber" },
    sample: { q: "tesco" },
    answer: companyAnswer(GbExtrasShape, GbItemExtrasShape),
    pick: (query: z.infer<typeof GbQuery>) =>
      query.companyNumber !== undefined ? { id: query.companyNumber } : { q: query.q as string },
    parseId: (raw) => parseUkCompanyNumber(raw),
    what: (id) => `Company ${id} at Companies House`,
    lookup: (ctx, number) => lookupGbCompany(ctx, key, number),
    search: (ctx, q) => searchGbCompanies(ctx, key, q),
    check: async (_input, ctx) => (ctx.upstreams.mode === "live" && !key ? missingKey() : undefined),
  });
  // With the snapshot index loaded a name search is answered from it: no API call, no budget spent.
  const withSnapshot: typeof route = {
    ...route,
    async handle(input, ctx) {
      const q = input.query.companyNumber === undefined ? input.query.q : undefined;
      const found = q === undefined ? undefined : await searchSnapshot(ctx, q);
      if (q === undefined || !found) return route.handle(input, ctx);
      const doc = {
        body: found.search,
        fetchedAt: found.fetchedAt,
        expiresAt: null,
        etag: null,
        lastModified: null,
        recordedSample: found.recordedSample,
      };
      return ok(searchAnswer(GB_INFO, q, doc));
    },
  };
  return {
    cc: "gb",
    products: [withSnapshot, gbCoverageProduct(), gbStatusProduct(key !== undefined)],
    warmers: [gbSnapshotWarmer],
    jobs,
  };
};
