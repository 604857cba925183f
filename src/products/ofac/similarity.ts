// The string measures OFAC FAQ 249 names for its Sanctions List Search: Jaro-Winkler, Soundex and edit distance
// (paycall's scoring built on them differs from OFAC's: see screen.ts).
// Written from the published definitions (Winkler 1990; the US National Archives' Soundex rules).

/** Jaro similarity in [0, 1]: shared characters within a sliding window, less half the transpositions. */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  // Buffers reused across calls: screening computes thousands of these per query.
  if (taken.length < lb) taken = new Uint8Array(lb * 2);
  if (matched.length < la) matched = new Uint16Array(la * 2);
  taken.fill(0, 0, lb);
  let m = 0;
  for (let i = 0; i < la; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(lb - 1, i + window);
    const code = a.charCodeAt(i);
    for (let j = from; j <= to; j++) {
      if (taken[j] === 0 && b.charCodeAt(j) === code) {
        taken[j] = 1;
        matched[m++] = code;
        break;
      }
    }
  }
  if (m === 0) return 0;
  let k = 0;
  let halfTranspositions = 0;
  for (let j = 0; j < lb; j++) {
    if (taken[j] === 0) continue;
    if (b.charCodeAt(j) !== matched[k]) halfTranspositions++;
    k++;
  }
  const t = halfTranspositions / 2;
  return (m / la + m / lb + (m - t) / m) / 3;
}

let taken = new Uint8Array(64);
let matched = new Uint16Array(64);

/** Winkler's boost: a common prefix of up to 4 characters raises a Jaro score above 0.7 towards 1. */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  if (j <= 0.7) return j;
  const limit = Math.min(4, a.length, b.length);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

const SOUNDEX_DIGIT: Record<string, string> = {
  b: "1",
  f: "1",
  p: "1",
  v: "1",
  c: "2",
  g: "2",
  j: "2",
  k: "2",
  q: "2",
  s: "2",
  x: "2",
  z: "2",
  d: "3",
  t: "3",
  l: "4",
  m: "5",
  n: "5",
  r: "6",
};

/**
 * American Soundex of a lower-case ASCII word: its first letter and three digits. Letters with the same digit
 * next to each other, or separated only by h or w, count once; vowels separate them. Empty for no letter.
 */
export function soundex(word: string): string {
  let first = "";
  let code = "";
  let previous = "";
  for (const char of word) {
    if (char < "a" || char > "z") continue;
    const digit = SOUNDEX_DIGIT[char] ?? "";
    if (first === "") {
      first = char.toUpperCase();
      previous = digit;
      continue;
    }
    if (char === "h" || char === "w") continue;
    if (digit === "") {
      previous = "";
      continue;
    }
    if (digit !== previous) code += digit;
    previous = digit;
    if (code.length === 3) break;
  }
  return first === "" ? "" : (first + code).padEnd(4, "0");
}

/**
 * Levenshtein distance, or `limit + 1` as soon as it must exceed `limit` (the prefilter only asks whether two
 * strings are at least half similar, so most comparisons stop after a few rows).
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > limit) return limit + 1;
  if (la === 0) return lb;
  if (lb === 0) return la;
  // Two rows reused across calls: the prefilter computes thousands of these per query.
  if (rowA.length <= lb) {
    rowA = new Uint16Array(lb * 2 + 2);
    rowB = new Uint16Array(lb * 2 + 2);
  }
  let previous = rowA;
  let current = rowB;
  for (let j = 0; j <= lb; j++) previous[j] = j;
  for (let i = 1; i <= la; i++) {
    current[0] = i;
    let rowMin = i;
    const code = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const cost = code === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[lb] as number;
}

let rowA = new Uint16Array(64);
let rowB = new Uint16Array(64);

/**
 * 1 − distance / longer length, or 0 when that is under 0.5: OFAC's prefilter keeps names at least 0.5 similar
 * by this measure, so nothing below it needs computing exactly.
 */
export function editSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  const limit = Math.floor(longer / 2);
  const distance = editDistance(a, b, limit);
  return distance > limit ? 0 : 1 - distance / longer;
}
