// Query parameters every /v1/gov route shares: free text refused when it carries control characters, the
// exactly-one-of q|id rule, and the folding that makes equal questions share one cache entry.
import { z } from "zod";
import { hasControlCharacters } from "../../../catalog/text-guard.ts";
import { sha256 } from "../../../sha256.ts";

const FREE_TEXT_MAX = 200;

/** NFC, trimmed, inner whitespace collapsed: the query as shown back to the buyer. */
export function normaliseQuery(text: string): string {
  return text.normalize("NFC").trim().replace(/\s+/gu, " ");
}

/** Case and diacritics folded (ß → ss, æ → ae, ø → o, ł → l), for matching and cache keys. */
export function foldText(text: string): string {
  return normaliseQuery(text)
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/æ/g, "ae")
    .replace(/œ/g, "oe")
    .replace(/ø/g, "o")
    .replace(/ł/g, "l")
    .replace(/đ/g, "d")
    .normalize("NFC");
}

/** The words of a text as indexed and searched: folded, split on anything that is not a letter or digit. */
export function searchWords(text: string): string[] {
  return foldText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/**
 * Short stable hash of a normalised query: the cache key of a search and the `hash` field of answers. Case and
 * diacritics are folded unless the upstream tells diacritics apart (`keepDiacritics`).
 */
export function queryHash(text: string, options: { keepDiacritics?: boolean } = {}): string {
  const key = options.keepDiacritics ? `exact:${normaliseQuery(text).toLowerCase()}` : foldText(text);
  return sha256(key).slice(0, 12);
}

/** A free-text parameter: trimmed, not empty, at most `max` characters, no control characters. */
export function freeText(parameter: string, max = FREE_TEXT_MAX) {
  return z
    .string({ error: `${parameter} must be text` })
    .refine((value) => !hasControlCharacters(value), {
      message: `${parameter} must not contain control characters (NUL, line breaks, bidirectional overrides)`,
    })
    .transform(normaliseQuery)
    .refine((value) => value.length > 0, { message: `${parameter} must not be empty` })
    .refine((value) => value.length <= max, { message: `${parameter} must be at most ${max} characters` })
    .refine((value) => searchWords(value).length > 0, {
      message: `${parameter} must contain at least one letter or digit`,
    });
}

export type IdParse<Id extends string> = { id: Id } | { error: string };

interface LookupQueryOptions<Id extends string, Extra extends z.ZodRawShape> {
  id: { describe: string; parse: (raw: string) => IdParse<Id> };
  qDescribe: string;
  /** More optional parameters (e.g. `limit`). */
  extra?: Extra;
}

/**
 * `q` (a search) or `id` (one item), exactly one of them; a malformed id is refused naming `id`, with the
 * shape it must have.
 */
export function lookupQuery<Id extends string, Extra extends z.ZodRawShape = Record<never, never>>(
  options: LookupQueryOptions<Id, Extra>,
) {
  const id = z
    .string({ error: "id must be text" })
    .refine((value) => !hasControlCharacters(value), { message: "id must not contain control characters" })
    .transform((raw, ctx) => {
      const parsed = options.id.parse(raw.normalize("NFC").trim());
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.id;
    })
    .optional()
    .describe(options.id.describe);
  const q = freeText("q").optional().describe(options.qDescribe);
  return z.object({ q, id, ...((options.extra ?? {}) as Extra) }).superRefine((query, ctx) => {
    const given = (query as { q?: string }).q !== undefined;
    const hasId = (query as { id?: string }).id !== undefined;
    if (!given && !hasId) {
      ctx.addIssue({ code: "custom", path: ["q"], message: "give q (a search) or id (one item)" });
    } else if (given && hasId) {
      ctx.addIssue({ code: "custom", path: ["id"], message: "give either q or id, not both" });
    }
  });
}
