// The licences and notices /v1/gov answers carry, one object shape for all of them (`licence`: `name`, `url`, sometimes `attribution`).
import { z } from "zod";

export const LicenceSchema = z
  .object({
    name: z.string().describe("Licence or terms under which the upstream publishes the data"),
    url: z.url().describe("Where the licence or terms are published"),
    attribution: z.string().optional().describe("The attribution the licence asks for"),
    notice: z.string().optional().describe("Disclaimer or notice the upstream asks to be shown"),
  })
  .describe("The upstream's licence or terms, with the attribution it requires");

export type Licence = z.infer<typeof LicenceSchema>;

const SAMPLE_NOTICE =
  "RECORDED SAMPLE, NOT LIVE DATA: this answer comes from a recorded sample of the upstream's documented " +
  "response shape (UPSTREAMS=replay); its values are placeholders, not the register's.";

export const LICENCES = {
  ccBy40: (attribution: string): Licence => ({
    name: "Creative Commons Attribution 4.0 International (CC BY 4.0)",
    url: "https://creativecommons.org/licenses/by/4.0/",
    attribution,
  }),
  oglV3: (attribution: string): Licence => ({
    name: "Open Government Licence v3.0",
    url: "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/",
    attribution,
  }),
  pdl10: (attribution: string): Licence => ({
    name: "Public Data License (Japan) Version 1.0 (PDL 1.0)",
    url: "https://www.digital.go.jp/resources/open_data/public_data_license_v1.0",
    attribution,
  }),
  licenceOuverte20: (attribution: string): Licence => ({
    name: "Licence Ouverte / Open Licence 2.0 (Etalab)",
    url: "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
    attribution,
  }),
  oglCanada20: (attribution: string): Licence => ({
    name: "Open Government Licence – Canada 2.0",
    url: "https://open.canada.ca/en/open-government-licence-canada",
    attribution,
  }),
  dlDeBy20: (attribution: string): Licence => ({
    name: "Datenlizenz Deutschland – Namensnennung – Version 2.0 (dl-de/by-2-0)",
    url: "https://www.govdata.de/dl-de/by-2-0",
    attribution,
  }),
  cc0: (attribution: string): Licence => ({
    name: "Creative Commons Zero 1.0 (CC0): public domain dedication",
    url: "https://creativecommons.org/publicdomain/zero/1.0/",
    attribution,
  }),
  /** Commission Decision 2011/833/EU on the reuse of Commission documents, as EUR-Lex states it. */
  eurlex: (): Licence => ({
    name: "EUR-Lex reuse policy (Commission Decision 2011/833/EU); Cellar metadata CC0",
    url: "https://eur-lex.europa.eu/content/legal-notice/legal-notice.html",
    attribution: "© European Union, https://eur-lex.europa.eu/, 1998–2026",
    notice:
      "Only European Union legislation printed in the paper edition of the Official Journal of the European " +
      "Union (or, since 1 July 2013, its authentic electronic edition) is deemed authentic.",
  }),
  /** US government works: public domain, with eCFR's own disclaimer. */
  ecfr: (): Licence => ({
    name: "Public domain (US government work, 17 U.S.C. 105)",
    url: "https://www.ecfr.gov/reader-aids/using-ecfr/ecfr-disclaimer",
    attribution: "Electronic Code of Federal Regulations (eCFR), Office of the Federal Register",
    notice:
      "The eCFR is an editorial compilation of CFR material and Federal Register amendments. It is not an " +
      "official legal edition of the CFR.",
  }),
};

/** In replay mode the licence says, first, that the answer is a recorded sample. */
export function withSampleNotice(licence: Licence, recordedSample: boolean): Licence {
  if (!recordedSample) return licence;
  return { ...licence, notice: licence.notice ? `${SAMPLE_NOTICE} ${licence.notice}` : SAMPLE_NOTICE };
}
