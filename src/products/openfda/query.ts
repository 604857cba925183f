// The buyer's `q` of /v1/openfda/drug/label: a brand or generic drug name, validated before payment and
// turned into openFDA searches in which the name is always one quoted phrase (never query syntax).
// openFDA refuses any search holding a character outside ASCII letters, digits and a few signs: its server tests
// the whole search against SUPPORTED_QUERY_RE and answers 400 "Search not supported" (FDA/openfda,
// api/faers/elasticsearch_query.js, BuildQuery). So a name is folded to ASCII where that is the same name
// (diacritics removed: "ibuprofène" is searched as "ibuprofene"); a letter with no ASCII form (ß, æ, ø, Greek,
// Cyrillic, CJK) is refused here, before payment.
import { z } from "zod";

const Q_MAX_CHARS = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Letters, digits, spaces and the punctuation drug names use (St. John's Wort, 5-FU, Tylenol PM, A+D). */
const ALLOWED = /^[\p{L}\p{N} .,'&/+()-]+$/u;

export interface LabelQuery {
  /** Trimmed, spaces collapsed, case kept. */
  text: string;
  /** ASCII, lower case: the cache key and the phrase searched. */
  key: string;
}

/** Canonical decomposition, then every combining mark removed: é → e, ñ → n, ü → u; ß, æ, ø are left as they are. */
export function foldDiacritics(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is what openFDA accepts
const NON_ASCII = /[^\u0000-\u007f]/gu;

export function parseLabelQuery(raw: string): LabelQuery | { error: string } {
  if (CONTROL.test(raw)) return { error: "q must not contain control characters" };
  const text = raw.replace(/\s+/g, " ").trim();
  if (text === "") return { error: "q is required: a brand or generic drug name, e.g. ibuprofen or Advil" };
  if (text.length > Q_MAX_CHARS) return { error: `q must be at most ${Q_MAX_CHARS} characters` };
  if (!ALLOWED.test(text))
    return { error: "q may contain letters, digits, spaces and the characters . , ' & / + ( ) -" };
  if (!/[\p{L}\p{N}]/u.test(text)) return { error: "q must contain a letter or digit" };
  const folded = foldDiacritics(text);
  const foreign = [...new Set(folded.match(NON_ASCII) ?? [])];
  if (foreign.length > 0) {
    return {
      error:
        `q contains ${foreign.map((c) => `"${c}"`).join(", ")}, which openFDA cannot search: it accepts ASCII ` +
        "letters only (accents are removed for you, so é is searched as e). Spell the name in Latin letters, " +
        "e.g. ss for ß, ae for æ.",
    };
  }
  return { text, key: folded.toLowerCase() };
}

export const LabelQuerySchema = z.object({
  q: z
    .string({ error: "q is required: a brand or generic drug name, e.g. ibuprofen or Advil" })
    .describe(
      `Brand or generic drug name, at most ${Q_MAX_CHARS} characters; case does not matter. Accents are ` +
        "removed before searching (openFDA searches ASCII only); a letter with no ASCII form is a 400",
    )
    .transform((raw, ctx) => {
      const parsed = parseLabelQuery(raw);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
});

export type SearchStep = "openfda_names" | "product_elements";

/**
 * openFDA searches, in order: the harmonised brand and generic names (the `openfda` block), then, when those
 * find nothing, the product data elements of labels that openFDA did not harmonise. The phrase is quoted and
 * holds no quote or backslash (ALLOWED), so it is never read as query syntax.
 */
export function upstreamSearches(
  query: Pick<LabelQuery, "key">,
): Array<{ step: SearchStep; search: string }> {
  const phrase = `"${query.key}"`;
  return [
    { step: "openfda_names", search: `openfda.brand_name:${phrase} OR openfda.generic_name:${phrase}` },
    { step: "product_elements", search: `spl_product_data_elements:${phrase}` },
  ];
}
