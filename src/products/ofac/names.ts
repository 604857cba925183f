// Names as the screening compares them: case, accents and punctuation folded away, legal forms dropped.
import { soundex } from "./similarity.ts";

/** Letters with no decomposition that NFKD would leave as they are. */
const FOLD: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

/**
 * Legal forms and articles that say nothing about who a company is ("ACME TRADING LLC" is ACME TRADING).
 * Dropped only when the name has other words left.
 */
const NOISE = new Set([
  "the",
  "llc",
  "ltd",
  "limited",
  "inc",
  "incorporated",
  "co",
  "corp",
  "corporation",
  "company",
  "plc",
  "llp",
  "sa",
  "sarl",
  "sas",
  "spa",
  "srl",
  "ag",
  "gmbh",
  "bv",
  "nv",
  "jsc",
  "ojsc",
  "pjsc",
  "cjsc",
  "oao",
  "pao",
  "zao",
  "ooo",
  "tov",
  "fze",
  "fzco",
  "fzc",
  "fzllc",
  "pte",
  "pvt",
  "sdn",
  "bhd",
]);

const MARKS = /\p{M}+/gu;
const APOSTROPHES = /['’‘`ʼ]/g;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

interface NormalisedName {
  /** Words joined by one space, in the order given. */
  text: string;
  tokens: string[];
  /** The words sorted, so that "PUTIN, Vladimir" and "Vladimir Putin" compare equal. */
  sorted: string;
  /** The words run together: "AERO CARIBBEAN" and "AEROCARIBBEAN" compare equal. */
  compact: string;
}

function foldText(raw: string): string {
  return raw
    .normalize("NFKD")
    .replace(MARKS, "")
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => FOLD[c] ?? c)
    .replace(APOSTROPHES, "")
    .replace(NOT_WORD, " ")
    .trim();
}

/**
 * Runs of single letters are initials ("A.Q. KHAN"), unless they spell a legal form ("L.L.C.", "S.A.").
 */
function dropSpelledNoise(words: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < words.length; ) {
    let j = i;
    while (j < words.length && (words[j] as string).length === 1) j++;
    if (j - i >= 2 && NOISE.has(words.slice(i, j).join(""))) {
      i = j;
      continue;
    }
    if (j > i) {
      kept.push(...words.slice(i, j));
      i = j;
    } else {
      kept.push(words[i] as string);
      i++;
    }
  }
  return kept;
}

export function normaliseName(raw: string): NormalisedName {
  const words = foldText(raw)
    .split(" ")
    .filter((w) => w !== "");
  const kept = dropSpelledNoise(words).filter((w) => !NOISE.has(w));
  const tokens = kept.length > 0 ? kept : words;
  return {
    text: tokens.join(" "),
    tokens,
    sorted: [...tokens].sort().join(" "),
    compact: tokens.join(""),
  };
}

/** Soundex's digit for a first letter; vowels and y share "0"; h and w stay themselves. */
const FIRST_LETTER_GROUP: Record<string, string> = Object.fromEntries(
  [..."abcdefghijklmnopqrstuvwxyz"].map((c) => [
    c,
    c === "h" || c === "w" ? c : soundex(`a${c}`).slice(1, 2),
  ]),
);

/**
 * Soundex of a word with its first letter coded like the others, so that spellings differing in a first
 * letter that sounds alike (CASH/KASH, OSAMA/USAMA) compare equal; "" for words with no Latin first letter.
 */
export function soundexOf(token: string): string {
  let code = soundexCache.get(token);
  if (code === undefined) {
    const first = token.charCodeAt(0);
    code =
      first >= 97 && first <= 122
        ? (FIRST_LETTER_GROUP[token[0] as string] ?? "0") + soundex(token).slice(1)
        : "";
    // The list's dictionary is about 70,000 words; the cache is dropped rather than grown past a bound.
    if (soundexCache.size >= 250_000) soundexCache.clear();
    soundexCache.set(token, code);
  }
  return code;
}

const soundexCache = new Map<string, string>();
