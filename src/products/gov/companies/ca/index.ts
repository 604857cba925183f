// Canada: GET /v1/gov/ca/companies — `corporationId` (aliases `number`, `id`) or `bn9`, one federal
// corporation from our own index of Corporations Canada's weekly open data (no name search); and the free
// GET /v1/gov/ca/companies/status.
//
// Misses are refused before payment: an id not in the index is 404 not_found (not a federal corporation, or
// not yet in the published data), and while no index is built yet (a fresh install whose first import runs)
// 404 not_cached with retryAfterSec; neither asks for payment, and neither is ever charged.
import { z } from "zod";
import {
  type ErrorOutcome,
  type HandlerContext,
  notCached,
  notFound,
  ok,
  product,
} from "../../../../catalog/product.ts";
import { hasControlCharacters } from "../../../../catalog/text-guard.ts";
import { type CountryModuleFactory, type GovRouteInfo, govProduct } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";
import type { IdParse } from "../../shared/query.ts";
import { companyAnswer, singleAnswer } from "../answers.ts";
import { caStatusProduct } from "./free.ts";
import { parseBn9, parseCorporationId } from "./identifiers.ts";
import {
  CA_IMPORT_WARMER,
  CA_SKU,
  caImportWarmer,
  caIndexLoaded,
  ensureCaSampleIndex,
  lookupByBn9,
  lookupCorporation,
} from "./import.ts";
import { CaExtrasShape, type StoredCaCompany } from "./normalise.ts";

const CA_INFO: GovRouteInfo = {
  cc: "ca",
  country: "Canada",
  family: "companies",
  upstream: "Corporations Canada federal corporations open data (ISED)",
  licence: {
    ...LICENCES.oglCanada20(
      "Contains information licensed under the Open Government Licence – Canada (Corporations Canada, " +
        "Innovation, Science and Economic Development Canada)",
    ),
    notice:
      "Federal corporations only; provincially incorporated businesses are in provincial registers. The open " +
      "data is refreshed weekly and may lag the register.",
  },
  warmers: [CA_IMPORT_WARMER],
};

/** How long a buyer is asked to wait while the first import builds the index. */
const CA_BUILDING_RETRY_SEC = 3600;

function idParameter(parameter: string, parse: (raw: string, parameter: string) => IdParse<string>) {
  return z
    .string({ error: `${parameter} must be text` })
    .refine((value) => !hasControlCharacters(value), {
      message: `${parameter} must not contain control characters`,
    })
    .transform((raw, ctx) => {
      const parsed = parse(raw.trim(), parameter);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.id;
    })
    .optional();
}

const CaQuery = z
  .object({
    corporationId: idParameter("corporationId", parseCorporationId).describe(
      "One federal corporation by its corporation number (up to 8 digits; hyphen and leading zeros allowed)",
    ),
    bn9: idParameter("bn9", parseBn9).describe("One federal corporation by its 9-digit business number root"),
  })
  .superRefine((query, ctx) => {
    if (query.corporationId === undefined && query.bn9 === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["corporationId"],
        message: "give corporationId (also number or id) or bn9; there is no name search",
      });
    } else if (query.corporationId !== undefined && query.bn9 !== undefined) {
      ctx.addIssue({ code: "custom", path: ["bn9"], message: "give either corporationId or bn9, not both" });
    }
  });

type CaQueryValue = z.infer<typeof CaQuery>;

type Found = { found: true; company: StoredCaCompany } | { found: false; outcome: ErrorOutcome };

async function find(query: CaQueryValue, ctx: HandlerContext): Promise<Found> {
  await ensureCaSampleIndex(ctx);
  const asked = query.corporationId ? `Corporation ${query.corporationId}` : `Business number ${query.bn9}`;
  if (!(await caIndexLoaded(ctx))) {
    return {
      found: false,
      outcome: notCached(
        "The index of Canada's federal corporations is being built from Corporations Canada's weekly open " +
          `data; ${asked} can be looked up once it is. Nothing was charged.`,
        CA_BUILDING_RETRY_SEC,
      ),
    };
  }
  const company = query.corporationId
    ? await lookupCorporation(ctx, query.corporationId)
    : await lookupByBn9(ctx, query.bn9 as string);
  if (!company) {
    return {
      found: false,
      outcome: notFound(
        `${asked} is not in Corporations Canada's open data of federal corporations (a provincial ` +
          "corporation, or one not yet published). Nothing was charged.",
        query.corporationId ? { corporationId: query.corporationId } : { bn9: query.bn9 },
      ),
    };
  }
  return { found: true, company };
}

export const caCompanies: CountryModuleFactory = () => {
  const route = govProduct(
    CA_INFO,
    product<CaQueryValue, undefined, unknown>({
      sku: CA_SKU,
      method: "GET",
      path: "/v1/gov/ca/companies",
      summary: "Canadian federal corporations by number or business number (Corporations Canada)",
      description:
        "One federal corporation by its corporation number (corporationId, alias number or id) or its 9-digit " +
        "business number root (bn9), from our index of Corporations Canada's weekly open data: status and its " +
        "detail, governing act, every name with its validity window, registered office, anniversary date, " +
        "annual filings, dated activities (incorporation, amalgamation, dissolution). Lookup by number only: " +
        "there is no name search. A number not in the data answers 404 before any payment. Company facts only: " +
        "the open data holds no directors.",
      status: "live",
      price: "0.005",
      query: CaQuery,
      aliases: { number: "corporationId", id: "corporationId" },
      answer: companyAnswer(CaExtrasShape),
      sample: { corporationId: "1007" },
      source: {
        name: CA_INFO.upstream,
        url: "https://open.canada.ca/data/en/dataset/0032ce54-c5dd-4b66-99a0-320a7b5e99f2",
        licence: CA_INFO.licence,
      },
      async check({ query }, ctx) {
        const found = await find(query, ctx);
        return found.found ? undefined : found.outcome;
      },
      async handle({ query }, ctx) {
        const found = await find(query, ctx);
        if (!found.found) return found.outcome;
        const recordedSample = ctx.upstreams.mode === "replay";
        return ok(
          singleAnswer(CA_INFO, {
            body: found.company,
            fetchedAt: found.company.scrapedAt,
            expiresAt: null,
            etag: null,
            lastModified: null,
            recordedSample,
          }),
        );
      },
    }),
  );
  return { cc: "ca", products: [route, caStatusProduct()], warmers: [caImportWarmer] };
};
