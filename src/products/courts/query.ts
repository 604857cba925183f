// The buyer's `q`: normalised once, keyed for the cache, and turned into a CourtListener query in which
// short queries are one phrase and longer ones require every word.
import { z } from "zod";

/** Queries of up to this many words are searched as one exact phrase; longer ones require every word. */
export const PHRASE_MAX_WORDS = 3;
const QUERY_MAX_CHARS = 300;
const QUERY_MAX_WORDS = 30;

export type SearchedAs = "word" | "phrase" | "allWords";

export interface CourtsQuery {
  /** Trimmed, whitespace collapsed, case kept: what the answer's `query` shows. */
  text: string;
  /** `text` in lower case: the cache key, and the words sent upstream. */
  key: string;
  /** The words sent upstream (tokens with at least one letter or digit), lower case. */
  words: string[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Trim, turn control characters into spaces and collapse runs of whitespace to one space. */
export function normaliseQueryText(raw: string): string {
  return raw.replace(CONTROL, " ").replace(/\s+/gu, " ").trim();
}

export function parseCourtsQuery(raw: string): CourtsQuery | { error: string } {
  const text = normaliseQueryText(raw);
  if (text === "")
    return { error: "q is required: words to search court opinions for, e.g. fourth amendment" };
  if (text.length > QUERY_MAX_CHARS) return { error: `q is longer than ${QUERY_MAX_CHARS} characters` };
  const key = text.toLowerCase();
  const words = key.split(" ").filter((word) => HAS_LETTER_OR_DIGIT.test(word));
  if (words.length === 0) return { error: "q must contain at least one word with a letter or digit" };
  if (words.length > QUERY_MAX_WORDS) return { error: `q has more than ${QUERY_MAX_WORDS} words` };
  return { text, key, words };
}

export const CourtsSearchQuery = z.object({
  q: z
    .string({ error: "q is required: words to search court opinions for, e.g. fourth amendment" })
    .describe(
      `Words to search US court opinions for. Up to ${PHRASE_MAX_WORDS} words match as one exact phrase; ` +
        "longer queries require every word. Case and extra spaces are ignored.",
    )
    .transform((raw, ctx) => {
      const parsed = parseCourtsQuery(raw);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
});

export type CourtsSearchInput = z.output<typeof CourtsSearchQuery>;

// Characters with a meaning in CourtListener's (Elasticsearch query_string) syntax. `<` and `>` cannot be
// escaped there, so they are removed; the others are escaped so the buyer's words stay plain words.
const RESERVED = /[+\-=&|!(){}[\]^"~*?:\\/]/g;

function plainTerm(word: string): string {
  return word.replace(/[<>]/g, "").replace(RESERVED, (c) => `\\${c}`);
}

function phraseText(words: string[]): string {
  return words.map((w) => w.replace(/[<>]/g, "").replace(/["\\]/g, (c) => `\\${c}`)).join(" ");
}

export function searchedAs(query: Pick<CourtsQuery, "words">): SearchedAs {
  if (query.words.length === 1) return "word";
  return query.words.length <= PHRASE_MAX_WORDS ? "phrase" : "allWords";
}

/**
 * The `q` sent to CourtListener. One word goes bare (keeping stemming); two or three words become one quoted
 * phrase; four or more are joined with AND. Words are lower case, so a buyer's AND/OR/NOT are plain words.
 */
export function upstreamQueryFor(query: Pick<CourtsQuery, "words">): string {
  switch (searchedAs(query)) {
    case "word":
      return plainTerm(query.words[0]!);
    case "phrase":
      return `"${phraseText(query.words)}"`;
    case "allWords":
      return query.words.map(plainTerm).join(" AND ");
  }
}

/** How the query was searched, in words, for messages. */
export function describeSearch(query: Pick<CourtsQuery, "words">): string {
  switch (searchedAs(query)) {
    case "word":
      return `the word "${query.words[0]}"`;
    case "phrase":
      return `the exact phrase "${query.words.join(" ")}"`;
    case "allWords":
      return `opinions containing every one of the words ${query.words.map((w) => `"${w}"`).join(", ")}`;
  }
}
