// GET /v1/openfda/drug/label: the FDA drug label for a brand or generic name. A query not yet cached is
// searched live on openFDA inside the paid call; if openFDA cannot answer, nothing is charged.
import { z } from "zod";
import { badRequest, type ErrorOutcome, ok, product, upstreamUnavailable } from "../../catalog/product.ts";
import { bestLabel, type LabelLookup, lookupLabels } from "./label-cache.ts";
import { LabelQuerySchema } from "./query.ts";
import type { OpenFdaSettings } from "./settings.ts";
import { OPENFDA_DISCLAIMER, OPENFDA_SOURCE } from "./upstream.ts";

const Text = z.string().nullable();
const Names = z.array(z.string());

const LabelSchema = z.object({
  setId: z.string().describe("SPL set id: the same for every version of this label"),
  labelId: Text.describe("Id of this label version"),
  version: Text.describe("Label version number"),
  effectiveDate: z.iso.date().nullable().describe("Effective date of this version, YYYY-MM-DD"),
  brandNames: Names,
  genericNames: Names,
  manufacturers: Names,
  routes: Names.describe("Routes of administration, e.g. ORAL"),
  productTypes: Names.describe("e.g. HUMAN OTC DRUG, HUMAN PRESCRIPTION DRUG"),
  substanceNames: Names.describe("Active substances (UNII-harmonised names)"),
  applicationNumbers: Names.describe("FDA application numbers, e.g. NDA018989, ANDA076112"),
  productNdcs: Names,
  activeIngredients: Text.describe("Active ingredient section (OTC labels), null when the label has none"),
  boxedWarning: Text.describe("Boxed warning, null when the label has none"),
  indications: Text.describe("Indications and usage"),
  purpose: Text.describe("Purpose (OTC labels)"),
  contraindications: Text,
  warnings: Text.describe("Warnings (or warnings and precautions)"),
  dosageAndAdministration: Text,
  truncatedSections: Names.describe(`Sections cut at 20,000 characters (the full text is on DailyMed)`),
  dailyMedUrl: z.url().describe("The label on DailyMed (US National Library of Medicine)"),
  apiUrl: z.url().describe("This label on the openFDA API"),
});

export const OpenFdaLabelAnswer = z.object({
  query: z.string().describe("The name asked for, spaces collapsed"),
  searchedAs: z
    .string()
    .describe(
      "The phrase searched on openFDA: lower case, accents removed (openFDA searches ASCII only), e.g. " +
        "ibuprofene for Ibuprofène",
    ),
  match: z.boolean().describe("True when a label was found"),
  label: LabelSchema.nullable().describe(
    "The best label: brand name equal to q, else generic name, else newest",
  ),
  matchedBy: z
    .enum(["brand_name", "generic_name", "product_elements"])
    .nullable()
    .describe(
      "Which field found it: openFDA's harmonised brand or generic name, or the product data elements",
    ),
  exactName: z.boolean().describe("The label's brand or generic name equals q (case aside)"),
  otherLabels: z
    .array(
      z.object({
        setId: z.string(),
        brandNames: Names,
        genericNames: Names,
        manufacturers: Names,
        effectiveDate: z.iso.date().nullable(),
        dailyMedUrl: z.url(),
      }),
    )
    .describe("Other labels the search found (other manufacturers, repackagers), newest first"),
  totalMatches: z.number().int().nonnegative().describe("Labels openFDA matched"),
  message: z.string().optional().describe("Present when no label matches"),
  openFdaLastUpdated: z.string().nullable().describe("When openFDA last updated the label dataset"),
  disclaimer: z.string().describe("openFDA's disclaimer, passed through"),
  terms: z.url(),
  licence: z.url(),
  auth: z.enum(["anonymous", "key"]).describe("How this service queried openFDA"),
  fetchedAt: z.iso.datetime().describe("When openFDA was searched"),
  source: z.url().describe("The openFDA search the answer came from (without any key)"),
  notice: z.string(),
});

type OpenFdaLabelAnswerBody = z.infer<typeof OpenFdaLabelAnswer>;

const UNAVAILABLE_RETRY_SEC = 60;

function labelNotice(recordedSample: boolean): string {
  const base = `Source: openFDA, US Food and Drug Administration (public domain). ${OPENFDA_DISCLAIMER}`;
  if (!recordedSample) return base;
  return (
    "RECORDED SAMPLE, NOT LIVE DATA: this label comes from a recorded sample of openFDA's documented response " +
    `shape (UPSTREAMS=replay), not from openFDA today. ${base}`
  );
}

function unavailable(message: string): ErrorOutcome {
  return upstreamUnavailable(
    `openFDA did not answer (${message.slice(0, 160)}) and this name is not cached yet; nothing was charged. Try again in about ${UNAVAILABLE_RETRY_SEC} seconds.`,
    { retryAfterSec: UNAVAILABLE_RETRY_SEC },
  );
}

function labelAnswer(text: string, lookup: Extract<LabelLookup, { found: true }>): OpenFdaLabelAnswerBody {
  const { body } = lookup.doc;
  const best = bestLabel(body);
  return {
    query: text,
    searchedAs: body.query,
    match: best !== undefined,
    label: best?.label ?? null,
    matchedBy: best?.matchedBy ?? null,
    exactName: best?.exactName ?? false,
    otherLabels: body.labels
      .filter((l) => l.setId !== best?.label.setId)
      .map((l) => ({
        setId: l.setId,
        brandNames: l.brandNames,
        genericNames: l.genericNames,
        manufacturers: l.manufacturers,
        effectiveDate: l.effectiveDate,
        dailyMedUrl: l.dailyMedUrl,
      })),
    totalMatches: body.total,
    ...(best
      ? {}
      : {
          message:
            `No FDA drug label on openFDA has the brand or generic name "${text}" or mentions it in its product ` +
            "data. Check the spelling, or try the generic name.",
        }),
    openFdaLastUpdated: body.lastUpdated,
    disclaimer: body.disclaimer ?? OPENFDA_DISCLAIMER,
    terms: "https://open.fda.gov/terms/",
    licence: "https://open.fda.gov/license/",
    auth: body.auth,
    fetchedAt: lookup.doc.fetchedAt,
    source: body.source,
    notice: labelNotice(lookup.doc.recordedSample),
  };
}

export function openFdaLabel(settings: OpenFdaSettings) {
  return product({
    sku: "openfda.drug.label",
    method: "GET",
    path: "/v1/openfda/drug/label",
    summary:
      "FDA drug label by brand or generic name: boxed warning, indications, warnings, dosage (openFDA)",
    description:
      "Finds the FDA structured product label (SPL) for a brand or generic drug name on openFDA: label set id, " +
      "brand and generic names, manufacturer, route, active ingredients, boxed warning, indications, warnings, " +
      "dosage and administration, effective date, DailyMed and openFDA links, with openFDA's disclaimer. " +
      "Searches openFDA's harmonised brand and generic names first (a name equal to q wins), then the product " +
      "data of labels openFDA did not harmonise. Answers are cached by name; a name not cached is searched " +
      "live. Accents are removed before searching, as openFDA searches ASCII only (Ibuprofène is searched as " +
      "ibuprofene); a name with a letter that has no ASCII form (ß, æ, Cyrillic …) is a 400 naming q, before " +
      "payment. No label is a 200 with match:false (charged); a search openFDA refuses is a 400 naming q and if " +
      "openFDA cannot be reached and nothing is cached, 503; neither is charged. Not medical advice.",
    status: "live",
    tags: ["health", "drugs", "fda", "openfda", "labels", "us"],
    price: "0.01",
    query: LabelQuerySchema,
    answer: OpenFdaLabelAnswer,
    sample: { q: "ibuprofen" },
    source: OPENFDA_SOURCE,

    async handle({ query }, ctx) {
      const lookup = await lookupLabels(ctx, settings, query.q);
      if (!lookup.found) {
        ctx.log.warn({ query: query.q.key, err: lookup.error.message }, "openfda search failed");
        return unavailable(lookup.error.message);
      }
      const refused = lookup.doc.body.refused;
      if (refused !== undefined) {
        return badRequest(
          "q",
          `q: openFDA refused to search "${query.q.text}" (${refused.slice(0, 160)}); change the name and try again. Nothing was charged.`,
          { upstreamStatus: 400 },
        );
      }
      return ok(labelAnswer(query.q.text, lookup));
    },
  });
}
