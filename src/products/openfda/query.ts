// The buyer's `q` of /v1/openfda/drug/label: a brand or generic drug name, validated before payment and
// turned into openFDA searches in which the name is always one quoted phrase (never query syntax).
import { z } from "zod";

export const Q_MAX_CHARS = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Letters, digits, spaces and the punctuation drug names use (St. John's Wort, 5-FU, Tylenol PM, A+D). */
const ALLOWED = /^[\p{L}\p{N} .,'&/+()-]+$/u;

export interface LabelQuery {
  /** Trimmed, spaces collapsed, case kept. */
  text: string;
  /** Lower case: the cache key and the phrase searched. */
  key: string;
}

export function parseLabelQuery(raw: string): LabelQuery | { error: string } {
  if (CONTROL.test(raw)) return { error: "q must not contain control characters" };
  const text = raw.replace(/\s+/g, " ").trim();
  if (text === "") return { error: "q is required: a brand or generic drug name, e.g. ibuprofen or Advil" };
  if (text.length > Q_MAX_CHARS) return { error: `q must be at most ${Q_MAX_CHARS} characters` };
  if (!ALLOWED.test(text))
    return { error: "q may contain letters, digits, spaces and the characters . , ' & / + ( ) -" };
  if (!/[\p{L}\p{N}]/u.test(text)) return { error: "q must contain a letter or digit" };
  return { text, key: text.toLowerCase() };
}

export const LabelQuerySchema = z.object({
  q: z
    .string({ error: "q is required: a brand or generic drug name, e.g. ibuprofen or Advil" })
    .describe(`Brand or generic drug name, at most ${Q_MAX_CHARS} characters; case does not matter`)
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
