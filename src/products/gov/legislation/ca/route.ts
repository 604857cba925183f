// GET /v1/gov/ca/legislation?code=C-46[&text=1]: one federal act or regulation from Justice Laws XML, cached
// and fetched by a job; codes are checked against our index of Legis.xml.
import { z } from "zod";
import { notFound, ok } from "../../../../catalog/product.ts";
import type { Config } from "../../../../config.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import type { Licence } from "../../shared/licences.ts";
import { GovTitleIndex } from "../../shared/title-index.ts";
import { actAnswer, legislationAnswer } from "../answers.ts";
import { legislationRoute } from "../route.ts";
import { type CaAct, parseCaCode } from "./normalise.ts";
import { CA_ACT_QUEUE, CA_CACHE, CA_INDEX, CA_INDEX_WARMER, CA_SAMPLE_CODE } from "./warmer.ts";

/** Canada's Reproduction of Federal Law Order, beside OGL–Canada (specific to this upstream). */
const REPRODUCTION_OF_FEDERAL_LAW: Licence = {
  name: "Reproduction of Federal Law Order (SI/97-5); Justice Laws XML also published under the Open Government Licence – Canada 2.0",
  url: "https://laws-lois.justice.gc.ca/eng/regulations/SI-97-5/page-1.html",
  attribution: "Source: Justice Laws Website, Department of Justice Canada (laws-lois.justice.gc.ca)",
  notice:
    "This is not an official version of the law. Anyone may reproduce federal law free of charge provided due " +
    "diligence is exercised in ensuring accuracy and the reproduction is not represented as an official version.",
};

const CA_INFO: GovRouteInfo = {
  cc: "ca",
  country: "Canada",
  family: "legislation",
  upstream: "Justice Laws Website XML (Legis.xml index and act XML), Department of Justice Canada",
  licence: REPRODUCTION_OF_FEDERAL_LAW,
  warmers: [CA_INDEX_WARMER],
};

const Section = z.object({
  label: z.string().nullable(),
  marginalNote: z.string().nullable(),
  text: z.string(),
});

const extras = {
  code: z.string().describe("Justice Laws code (UniqueId), e.g. C-46"),
  consolidatedNumber: z.string().nullable().describe("Consolidated number of the act (chapter), e.g. C-46"),
  titleEn: z.string().describe("Short title in English"),
  titleFr: z.string().nullable().describe("Title in French, from Legis.xml"),
  longTitleEn: z.string().nullable().describe("Long title in English"),
  lastAmended: z.string().nullable().describe("Date of last amendment (lims:lastAmendedDate)"),
  pitDate: z.string().nullable().describe("Point-in-time date of this consolidation (lims:pit-date)"),
  currentToDate: z
    .string()
    .nullable()
    .describe(
      "CurrentToDate from Legis.xml (Justice Laws gives the same date for every entry; not the website's 'current to')",
    ),
  xmlUrl: z.url().describe("The act's XML at Justice Laws"),
  scrapedAt: z.iso.datetime().describe("When the act's XML was read"),
  lang: z.literal("en").describe("Language of the answer's texts"),
  timezone: z.string().describe("Time zone of the dates (Ottawa)"),
  sections: z
    .array(Section)
    .optional()
    .describe("With text=1: every section's label, marginal note and text"),
};

const CaLegislationAnswer = legislationAnswer(extras);

const CaQuery = z.object({
  code: z
    .string({ error: "code is required: a Justice Laws code such as C-46 (Criminal Code) or SOR-2007-151" })
    .transform((raw, ctx) => {
      const parsed = parseCaCode(raw.normalize("NFC"));
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.code;
    })
    .describe("Justice Laws code of the act or regulation: C-46, A-1, SOR-2007-151, C.R.C.,_c._986"),
  text: z
    .enum(["0", "1"], { error: "text must be 1 (add every section's text) or 0" })
    .optional()
    .describe("1 adds every section's label, marginal note and text"),
});

export function caLegislationProduct(_config: Config) {
  return legislationRoute<z.infer<typeof CaQuery>, CaAct>({
    info: CA_INFO,
    summary: "Canadian federal acts and regulations (Justice Laws XML) by code",
    description:
      "One consolidated federal act or regulation by its Justice Laws code (code=C-46) with its English and " +
      "French titles, long title, last amendment and point-in-time dates; text=1 adds every section's text. " +
      "A code not cached yet answers 404 not_cached (not charged) and is fetched within about a minute; a code " +
      "absent from Legis.xml is 404 not_found. Not an official version of the law (SI/97-5).",
    query: CaQuery,
    answer: CaLegislationAnswer,
    sample: { code: CA_SAMPLE_CODE },
    source: {
      name: "Justice Laws Website XML",
      url: "https://laws-lois.justice.gc.ca/eng/XML/Legis.xml",
      notice: REPRODUCTION_OF_FEDERAL_LAW.notice,
    },
    act: {
      cacheFamily: CA_CACHE,
      queue: CA_ACT_QUEUE,
      parameter: "code",
      what: (code) => `Act ${code} of Justice Laws`,
      // Sections only when asked for (text=1).
      answer: (doc, query) => {
        const { sections, ...act } = doc.body;
        const body = query.text === "1" ? { ...act, sections } : act;
        return ok(actAnswer(CA_INFO, { ...doc, body }));
      },
    },
    // Once our index of Legis.xml is built, a code not in it is not found.
    check: async (query, ctx) => {
      const index = GovTitleIndex.of(ctx.store);
      if ((await index.liveGeneration(CA_INDEX)) !== undefined && !(await index.get(CA_INDEX, query.code))) {
        return notFound(`No act or regulation ${query.code} in Justice Laws' Legis.xml.`, {
          code: query.code,
        });
      }
      return undefined;
    },
  });
}
