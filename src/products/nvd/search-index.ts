// Keyword search over CVE records: an in-memory inverted index. Pure; built from the store by live-search.ts.
//
// Tokens are lower-cased words split on anything but letters and digits ("cross-site" → cross, site); a word
// with inner punctuation is also kept whole (cross-site, cve-2021-44228, 2.15.0, http_server) so a query can
// ask for it exactly. Every query word must match (AND). Results are ranked newest published first, ties by
// the higher CVE number: documents get their ordinal in that order, so posting lists are sorted by rank and
// the first matches of an intersection are the best ones.

import {
  forEachVarint,
  GrowingFloats,
  GrowingInts,
  GrowingVarints,
  release,
  temporaryInts,
} from "./int-arrays.ts";
import { compareIds, idCode, idOfCode, timeCode, timeOfCode } from "./rank-keys.ts";
import { MAX_TOKEN_LENGTH, type SortedTokens, TokenTable } from "./token-bytes.ts";

export const MAX_QUERY_TERMS = 16;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const SPACE = /^\s$/u;

interface Word {
  whole: string;
  parts: string[];
}

/** The bounds of the parts of the word being visited: part k is lower[partBounds[2k] … partBounds[2k + 1]). */
let partBounds = new Int32Array(32);

function addPart(parts: number, from: number, to: number): number {
  if (2 * parts + 2 > partBounds.length) {
    const larger = new Int32Array(partBounds.length * 2);
    larger.set(partBounds);
    partBounds = larger;
  }
  partBounds[2 * parts] = from;
  partBounds[2 * parts + 1] = to;
  return parts + 1;
}

/**
 * Calls `visit` for every whitespace-separated word of the lower-cased text, stripped of leading and trailing
 * punctuation: its bounds, and how many runs of letters and digits (parts) it has, their bounds in
 * `partBounds` while `visit` runs. A character scan that allocates nothing for ASCII text: this runs over
 * every record at each index build, where regular expressions, or strings and arrays per word, cost several
 * times more.
 */
function scanWords(lower: string, visit: (first: number, last: number, parts: number) => void): void {
  const n = lower.length;
  let i = 0;
  while (i < n) {
    let parts = 0;
    let first = -1;
    let last = -1;
    let partStart = -1;
    for (; i < n; ) {
      const code = lower.charCodeAt(i);
      let width = 1;
      let space: boolean;
      let word: boolean;
      if (code < 128) {
        space = code === 32 || (code >= 9 && code <= 13);
        word = (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
      } else {
        width = (lower.codePointAt(i) as number) > 0xffff ? 2 : 1;
        const char = lower.slice(i, i + width);
        space = SPACE.test(char);
        word = !space && WORD_CHAR.test(char);
      }
      if (space) {
        i += width;
        if (first >= 0 || partStart >= 0) break;
        continue;
      }
      if (word) {
        if (partStart < 0) partStart = i;
        if (first < 0) first = i;
        last = i + width;
      } else if (partStart >= 0) {
        parts = addPart(parts, partStart, i);
        partStart = -1;
      }
      i += width;
    }
    if (partStart >= 0) parts = addPart(parts, partStart, last);
    if (parts > 0) visit(first, last, parts);
  }
}

/** Calls `visit` for every word of the text, whole and in parts (see scanWords). */
function forEachWord(text: string, visit: (whole: string, parts: string[]) => void): void {
  const lower = text.toLowerCase();
  scanWords(lower, (first, last, count) => {
    const parts: string[] = [];
    for (let k = 0; k < count; k++)
      parts.push(lower.slice(partBounds[2 * k] as number, partBounds[2 * k + 1] as number));
    visit(lower.slice(first, last), parts);
  });
}

export function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  forEachWord(text, (whole, parts) => words.push({ whole, parts }));
  return words;
}

/** Calls `visit` with the bounds of every token of the lower-cased text, repeats included. */
function forEachToken(lower: string, visit: (from: number, to: number) => void): void {
  scanWords(lower, (first, last, parts) => {
    if (parts > 1 && last - first <= MAX_TOKEN_LENGTH) visit(first, last);
    for (let k = 0; k < parts; k++) {
      const from = partBounds[2 * k] as number;
      const to = partBounds[2 * k + 1] as number;
      if (to - from <= MAX_TOKEN_LENGTH) visit(from, to);
    }
  });
}

/** The distinct tokens a text is indexed under. */
export function indexTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  const lower = text.toLowerCase();
  forEachToken(lower, (from, to) => tokens.add(lower.slice(from, to)));
  return tokens;
}

export interface IndexDoc {
  id: string;
  /** ISO 8601 UTC. */
  published: string;
  text: string;
}

interface SearchResult {
  /** The tokens every hit contains. */
  terms: string[];
  /** All matches. */
  total: number;
  /** The best `limit` matches' ids, best first. */
  ids: string[];
}

/** Newest published first; the same instant → the higher CVE number first. */
export function compareRank(a: IndexDoc, b: IndexDoc): number {
  if (a.published !== b.published) return a.published < b.published ? 1 : -1;
  return compareIds(b.id, a.id);
}

/** First position in `list` at or after `from` holding a value ≥ `value` (list.length if none). */
function seek(list: Int32Array, from: number, value: number): number {
  let step = 1;
  let low = from;
  let high = from;
  // Gallop forward, then binary search the last stride: cheap when the cursor moves a little at a time.
  while (high < list.length && (list[high] as number) < value) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  high = Math.min(high, list.length);
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((list[mid] as number) < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

/** A heap string: a 16-byte header, then one byte a character (two when it is not Latin-1). */
function stringBytes(s: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the Latin-1 range, not control characters
  return 16 + (/^[\u0000-\u00ff]*$/.test(s) ? s.length : s.length * 2);
}

/** A Map entry's key, value and chain slots and its share of the hash table. */
const MAP_ENTRY_BYTES = 24;

/**
 * A term's documents: how many, and either their sorted ordinals or, for a common term, its bitset (in at
 * least 1/32 of the documents, where a bitset costs no more than the list it replaces).
 */
interface Posting {
  count: number;
  list: Int32Array | undefined;
  bits: Uint32Array | undefined;
}

/** What a builder hands the index. */
interface IndexParts {
  ids: Float64Array;
  oddIds: Map<number, string>;
  tokens: SortedTokens;
  refs: Int32Array;
  postings: Int32Array;
  bitsets: Uint32Array[];
  denseFrom: number;
}

/**
 * Documents are known by their ordinal, their rank. Every array is typed (no string or object per document
 * or token): at 300,000 CVEs a Map of a million token strings and a string per id cost ~100 MB of heap.
 */
export class CveSearchIndex {
  /** Per ordinal, the id's code (rank-keys.ts); NaN where the id has no code and is in `oddIds`. */
  private readonly ids: Float64Array;
  private readonly oddIds: Map<number, string>;
  private readonly tokens: SortedTokens;
  /**
   * Per token, in the order of `tokens`: ≥ 0, where its entry starts in `postings`; < 0, the one document it
   * is in, as -1 - ordinal (most tokens: an id, a function or file name).
   */
  private readonly refs: Int32Array;
  /**
   * Every entry end to end: the token's document count, then its ordinals in rank order, or, when the count is
   * at least `denseFrom`, the number of its bitset.
   */
  private readonly postings: Int32Array;
  /** The common tokens' bitsets, one bit a document: intersecting common words is a word-wise AND. */
  private readonly bitsets: Uint32Array[];
  private readonly denseFrom: number;

  /** Use CveSearchIndex.build or CveSearchIndexBuilder. */
  constructor(parts: IndexParts) {
    this.ids = parts.ids;
    this.oddIds = parts.oddIds;
    this.tokens = parts.tokens;
    this.refs = parts.refs;
    this.postings = parts.postings;
    this.bitsets = parts.bitsets;
    this.denseFrom = parts.denseFrom;
  }

  /** An index over `docs`, in any order. */
  static build(docs: Iterable<IndexDoc>): CveSearchIndex {
    const builder = new CveSearchIndexBuilder();
    for (const doc of docs) builder.add(doc);
    return builder.finish();
  }

  private postingOf(token: string): Posting | undefined {
    const position = this.tokens.find(token);
    if (position < 0) return undefined;
    const ref = this.refs[position] as number;
    if (ref < 0) return { count: 1, list: Int32Array.of(-1 - ref), bits: undefined };
    const count = this.postings[ref] as number;
    if (count < this.denseFrom)
      return { count, list: this.postings.subarray(ref + 1, ref + 1 + count), bits: undefined };
    return { count, list: undefined, bits: this.bitsets[this.postings[ref + 1] as number] };
  }

  private idAt(ordinal: number): string {
    const code = this.ids[ordinal] as number;
    return Number.isNaN(code) ? (this.oddIds.get(ordinal) as string) : idOfCode(code);
  }

  get size(): number {
    return this.ids.length;
  }

  get vocabulary(): number {
    return this.tokens.size;
  }

  /**
   * The size of the index in memory, for the status route: its typed arrays, and the ids kept as strings (a
   * header and one byte a character) with their map entries. Leaves out a few hundred bytes of objects.
   */
  approximateBytes(): number {
    let bytes =
      this.ids.byteLength + this.tokens.byteLength + this.refs.byteLength + this.postings.byteLength;
    for (const bits of this.bitsets) bytes += bits.byteLength;
    for (const id of this.oddIds.values()) bytes += MAP_ENTRY_BYTES + stringBytes(id);
    return bytes;
  }

  /** The tokens a query asks for: a punctuated word whole when the index knows it, else its parts. */
  termsOf(query: string): string[] {
    const terms = new Set<string>();
    for (const word of wordsOf(query)) {
      if (word.parts.length > 1 && this.tokens.find(word.whole) >= 0) terms.add(word.whole);
      else for (const part of word.parts) terms.add(part);
    }
    return [...terms];
  }

  search(query: string, limit: number): SearchResult {
    const terms = this.termsOf(query);
    const postings: Posting[] = [];
    for (const term of terms) {
      const posting = this.postingOf(term);
      if (!posting) return { terms, total: 0, ids: [] };
      postings.push(posting);
    }
    if (postings.length === 0) return { terms, total: 0, ids: [] };
    postings.sort((a, b) => a.count - b.count);
    const hits: number[] = [];
    const total =
      postings.length === 1
        ? firstOf(postings[0] as Posting, limit, hits)
        : postings.every((p) => p.bits)
          ? intersectBitsets(
              postings.map((p) => p.bits as Uint32Array),
              limit,
              hits,
            )
          : intersectLists(postings, limit, hits);
    return { terms, total, ids: hits.map((ordinal) => this.idAt(ordinal)) };
  }
}

/**
 * Builds the index a page of documents at a time, in any order: it keeps each document's id and publication
 * time (as numbers, rank-keys.ts) and token slots (varints), never its text, and ranks the documents only at the
 * end. Posting lists are then filled in rank order, so each comes out sorted with no per-token array on the
 * way. One use: `finish` gives the builder's arrays back as it goes.
 */
export class CveSearchIndexBuilder {
  private readonly ids = new GrowingFloats(1 << 12);
  private readonly oddIds = new Map<number, string>();
  private readonly times = new GrowingFloats(1 << 12);
  private readonly oddTimes = new Map<number, string>();
  private readonly tokens = new TokenTable();
  /** Every document's distinct token slots, end to end; document d's are docSlots[docStart[d] … docStart[d + 1]). */
  private readonly docSlots = new GrowingVarints(1 << 16);
  private readonly docStart = new GrowingInts(1 << 12);
  /** Per slot, the last document it was seen in (a token repeated within a document is posted once). */
  private readonly seenIn = new GrowingInts(1 << 12);
  private finished = false;

  constructor() {
    this.docStart.push(0);
  }

  add(doc: IndexDoc): void {
    if (this.finished) throw new Error("CveSearchIndexBuilder: add after finish");
    const d = this.ids.length;
    const id = idCode(doc.id);
    this.ids.push(id);
    if (Number.isNaN(id)) this.oddIds.set(d, doc.id);
    const time = timeCode(doc.published);
    this.times.push(time);
    if (Number.isNaN(time)) this.oddTimes.set(d, doc.published);
    const { tokens, seenIn, docSlots } = this;
    const lower = doc.text.toLowerCase();
    forEachToken(lower, (from, to) => {
      const slot = tokens.slotOf(lower, from, to);
      if (slot === seenIn.length) seenIn.push(-1);
      if (seenIn.values[slot] === d) return;
      seenIn.values[slot] = d;
      docSlots.push(slot);
    });
    this.docStart.push(docSlots.length);
  }

  /** Newest published first; the same instant → the higher CVE number first (compareRank, on codes). */
  private compareDocs(a: number, b: number): number {
    const ta = this.times.values[a] as number;
    const tb = this.times.values[b] as number;
    if (Number.isNaN(ta) || Number.isNaN(tb)) {
      const sa = this.oddTimes.get(a) ?? timeOfCode(ta);
      const sb = this.oddTimes.get(b) ?? timeOfCode(tb);
      if (sa !== sb) return sa < sb ? 1 : -1;
    } else if (ta !== tb) return tb - ta;
    const ia = this.ids.values[a] as number;
    const ib = this.ids.values[b] as number;
    if (Number.isNaN(ia) || Number.isNaN(ib))
      return compareIds(this.oddIds.get(b) ?? idOfCode(ib), this.oddIds.get(a) ?? idOfCode(ia));
    return ib - ia;
  }

  finish(): CveSearchIndex {
    if (this.finished) throw new Error("CveSearchIndexBuilder: finish twice");
    this.finished = true;
    const count = this.ids.length;
    const rankOrder = Array.from({ length: count }, (_, d) => d).sort((a, b) => this.compareDocs(a, b));
    const ids = new Float64Array(count);
    const oddIds = new Map<number, string>();
    rankOrder.forEach((d, ordinal) => {
      ids[ordinal] = this.ids.values[d] as number;
      const odd = this.oddIds.get(d);
      if (odd !== undefined) oddIds.set(ordinal, odd);
    });
    release(this.ids.values);
    release(this.times.values);
    const slots = this.tokens.size;
    const { tokens, positionOf } = this.tokens.sorted();

    // Each token's document count, in the array that told which document saw it last.
    const counts = this.seenIn.values.fill(0, 0, slots);
    forEachVarint(this.docSlots.values, 0, this.docSlots.length, (slot) => {
      counts[slot] = (counts[slot] as number) + 1;
    });
    const denseFrom = Math.max(64, count / 32);
    const { refs, postings, cursor, dense } = layOut(counts, positionOf, denseFrom);
    release(counts);

    const words = Math.ceil(count / 32);
    const bitsets = Array.from({ length: dense }, () => new Uint32Array(words));
    const docSlots = this.docSlots.values;
    const docStart = this.docStart.values;
    rankOrder.forEach((d, ordinal) => {
      forEachVarint(docSlots, docStart[d] as number, docStart[d + 1] as number, (slot) => {
        const position = positionOf[slot] as number;
        const c = cursor[position] as number;
        if (c >= 0) {
          postings[c] = ordinal;
          cursor[position] = c + 1;
        } else if (c === -1) {
          refs[position] = -1 - ordinal;
        } else {
          const bits = bitsets[-2 - c] as Uint32Array;
          bits[ordinal >>> 5] = (bits[ordinal >>> 5] as number) | (1 << (ordinal & 31));
        }
      });
    });
    for (const array of [docSlots, docStart, positionOf, cursor]) release(array);
    return new CveSearchIndex({ ids, oddIds, tokens, refs, postings, bitsets, denseFrom });
  }
}

/**
 * Each token's entry in `postings` (by its position in byte order) and the cursor that fills it: where its
 * next ordinal goes (≥ 0), -1 for a token of one document (its ref becomes the document), or -2 - the number
 * of its bitset. The lists' ordinals are written later, in rank order.
 */
function layOut(
  counts: Int32Array,
  positionOf: Int32Array,
  denseFrom: number,
): { refs: Int32Array; postings: Int32Array; cursor: Int32Array; dense: number } {
  const slots = positionOf.length;
  let size = 0;
  for (let slot = 0; slot < slots; slot++) {
    const n = counts[slot] as number;
    if (n > 1) size += n >= denseFrom ? 2 : 1 + n;
  }
  const postings = new Int32Array(size);
  const refs = new Int32Array(slots);
  const cursor = temporaryInts(slots);
  let at = 0;
  let dense = 0;
  for (let slot = 0; slot < slots; slot++) {
    const n = counts[slot] as number;
    const position = positionOf[slot] as number;
    if (n === 1) {
      cursor[position] = -1;
      continue;
    }
    refs[position] = at;
    postings[at] = n;
    if (n >= denseFrom) {
      postings[at + 1] = dense;
      cursor[position] = -2 - dense++;
      at += 2;
    } else {
      cursor[position] = at + 1;
      at += 1 + n;
    }
  }
  return { refs, postings, cursor, dense };
}

/** One term: its count, and its first `limit` documents from its list or its bitset. */
function firstOf(posting: Posting, limit: number, hits: number[]): number {
  const { list, bits } = posting;
  if (list) {
    for (let i = 0; i < Math.min(limit, list.length); i++) hits.push(list[i] as number);
  } else if (bits) {
    for (let w = 0; w < bits.length && hits.length < limit; w++) {
      let word = bits[w] as number;
      while (word !== 0 && hits.length < limit) {
        const lowest = word & -word;
        hits.push(w * 32 + 31 - Math.clz32(lowest));
        word ^= lowest;
      }
    }
  }
  return posting.count;
}

/** Walks the shortest list, testing each document against the others (a bit test, or a seek). */
function intersectLists(postings: Posting[], limit: number, hits: number[]): number {
  const [first, ...others] = postings as [Posting, ...Posting[]];
  // Not every term has a bitset, so the shortest has a list: bitsets are for the longest ones.
  const smallest = first.list as Int32Array;
  let total = 0;
  const cursors = new Array<number>(others.length).fill(0);
  outer: for (const ordinal of smallest) {
    for (let j = 0; j < others.length; j++) {
      const other = others[j] as Posting;
      if (other.bits) {
        if (((other.bits[ordinal >>> 5] as number) & (1 << (ordinal & 31))) === 0) continue outer;
        continue;
      }
      const list = other.list as Int32Array;
      const at = seek(list, cursors[j] as number, ordinal);
      cursors[j] = at;
      if (at === list.length) break outer;
      if (list[at] !== ordinal) continue outer;
    }
    total++;
    if (hits.length < limit) hits.push(ordinal);
  }
  return total;
}

/** Every term is common: AND the bitsets word by word, count the bits, collect the first `limit`. */
function intersectBitsets(bitsets: Uint32Array[], limit: number, hits: number[]): number {
  const n = bitsets.length;
  // The first three ANDed in one expression (a set ANDed with itself is itself), any more in a loop.
  const first = bitsets[0] as Uint32Array;
  const second = n > 1 ? (bitsets[1] as Uint32Array) : first;
  const third = n > 2 ? (bitsets[2] as Uint32Array) : second;
  let total = 0;
  for (let w = 0; w < first.length; w++) {
    let word = first[w] as number;
    if (word === 0) continue;
    word &= (second[w] as number) & (third[w] as number);
    for (let j = 3; j < n && word !== 0; j++) word &= (bitsets[j] as Uint32Array)[w] as number;
    if (word === 0) continue;
    total += popcount(word);
    while (word !== 0 && hits.length < limit) {
      const lowest = word & -word;
      hits.push(w * 32 + 31 - Math.clz32(lowest));
      word ^= lowest;
    }
  }
  return total;
}
