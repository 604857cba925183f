// Keyword search over CVE records: an in-memory inverted index. Pure; built from the store by live-search.ts.
//
// Tokens are lower-cased words split on anything but letters and digits ("cross-site" → cross, site); a word
// with inner punctuation is also kept whole (cross-site, cve-2021-44228, 2.15.0, http_server) so a query can
// ask for it exactly. Every query word must match (AND). Results are ranked newest published first, ties by
// the higher CVE number: documents get their ordinal in that order, so posting lists are sorted by rank and
// the first matches of an intersection are the best ones.

/** Longer tokens are hashes or URLs, never worth a posting list. */
const MAX_TOKEN_LENGTH = 64;
export const MAX_QUERY_TERMS = 16;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const SPACE = /^\s$/u;

export interface Word {
  whole: string;
  parts: string[];
}

/**
 * Calls `visit` for every whitespace-separated word of the lower-cased text, stripped of leading and trailing
 * punctuation, with its runs of letters and digits. A character scan: this runs over every record at each
 * index build, where regular expressions per word cost several times more.
 */
function forEachWord(text: string, visit: (whole: string, parts: string[]) => void): void {
  const lower = text.toLowerCase();
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const parts: string[] = [];
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
        parts.push(lower.slice(partStart, i));
        partStart = -1;
      }
      i += width;
    }
    if (partStart >= 0) parts.push(lower.slice(partStart, last));
    if (parts.length > 0) visit(lower.slice(first, last), parts);
  }
}

export function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  forEachWord(text, (whole, parts) => words.push({ whole, parts }));
  return words;
}

/** Calls `visit` for every token of the text, repeats included. */
function forEachToken(text: string, visit: (token: string) => void): void {
  forEachWord(text, (whole, parts) => {
    if (parts.length > 1 && whole.length <= MAX_TOKEN_LENGTH) visit(whole);
    for (const part of parts) if (part.length <= MAX_TOKEN_LENGTH) visit(part);
  });
}

/** The distinct tokens a text is indexed under. */
export function indexTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  forEachToken(text, (token) => tokens.add(token));
  return tokens;
}

export interface IndexDoc {
  id: string;
  /** ISO 8601 UTC. */
  published: string;
  text: string;
}

export interface SearchResult {
  /** The tokens every hit contains. */
  terms: string[];
  /** All matches. */
  total: number;
  /** The best `limit` matches' ids, best first. */
  ids: string[];
}

/** Newest published first; the same instant → the higher CVE number first. */
export function compareRank(a: IndexDoc, b: IndexDoc): number {
  return compareByRank(a.id, a.published, b.id, b.published);
}

function compareByRank(aId: string, aPublished: string, bId: string, bPublished: string): number {
  if (aPublished !== bPublished) return aPublished < bPublished ? 1 : -1;
  if (aId.length !== bId.length) return bId.length - aId.length;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
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

/** A term's documents: the sorted ordinals, and a bitset too when the term is common. */
interface Posting {
  list: Int32Array;
  bits: Uint32Array | undefined;
}

export class CveSearchIndex {
  private readonly ids: string[];
  /** Token → its slot; slot k's posting list is postings[offsets[k] … offsets[k + 1]). */
  private readonly slots: Map<string, number>;
  private readonly offsets: Int32Array;
  /** Every posting list end to end in one array: a typed array per token would cost ~100 bytes each. */
  private readonly postings: Int32Array;
  /**
   * Bitsets of the common tokens (in at least 1/32 of the documents, so a bitset costs at most 4 times the
   * list it mirrors): intersecting common words becomes a word-wise AND instead of a walk over long lists.
   */
  private readonly bitsets: Map<number, Uint32Array>;

  /** Use CveSearchIndex.build or CveSearchIndexBuilder. */
  constructor(
    ids: string[],
    slots: Map<string, number>,
    offsets: Int32Array,
    postings: Int32Array,
    bitsets: Map<number, Uint32Array>,
  ) {
    this.ids = ids;
    this.slots = slots;
    this.offsets = offsets;
    this.postings = postings;
    this.bitsets = bitsets;
  }

  /** An index over `docs`, in any order. */
  static build(docs: Iterable<IndexDoc>): CveSearchIndex {
    const builder = new CveSearchIndexBuilder();
    for (const doc of docs) builder.add(doc);
    return builder.finish();
  }

  private postingOf(token: string): Posting | undefined {
    const slot = this.slots.get(token);
    if (slot === undefined) return undefined;
    return {
      list: this.postings.subarray(this.offsets[slot], this.offsets[slot + 1]),
      bits: this.bitsets.get(slot),
    };
  }

  get size(): number {
    return this.ids.length;
  }

  get vocabulary(): number {
    return this.slots.size;
  }

  /**
   * A rough size of the index in memory, for the status route: the id and token strings (one byte a character
   * plus a header), a slot per array entry and map entry, and the typed arrays. Not an exact heap measurement.
   */
  approximateBytes(): number {
    if (this.bytes !== undefined) return this.bytes;
    let bytes = this.ids.length * 4 + this.offsets.byteLength + this.postings.byteLength;
    for (const id of this.ids) bytes += stringBytes(id);
    for (const token of this.slots.keys()) bytes += MAP_ENTRY_BYTES + stringBytes(token);
    for (const bits of this.bitsets.values()) bytes += MAP_ENTRY_BYTES + 64 + bits.byteLength;
    this.bytes = bytes;
    return bytes;
  }

  private bytes: number | undefined;

  /** The tokens a query asks for: a punctuated word whole when the index knows it, else its parts. */
  termsOf(query: string): string[] {
    const terms = new Set<string>();
    for (const word of wordsOf(query)) {
      if (word.parts.length > 1 && this.slots.has(word.whole)) terms.add(word.whole);
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
    postings.sort((a, b) => a.list.length - b.list.length);
    const hits: number[] = [];
    const total = postings.every((p) => p.bits)
      ? intersectBitsets(
          postings.map((p) => p.bits as Uint32Array),
          limit,
          hits,
        )
      : intersectLists(postings, limit, hits);
    return { terms, total, ids: hits.map((ordinal) => this.ids[ordinal] as string) };
  }
}

/** An Int32Array that doubles when full. */
class GrowingInts {
  values: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const larger = new Int32Array(this.values.length * 2);
      larger.set(this.values);
      this.values = larger;
    }
    this.values[this.length++] = value;
  }
}

/**
 * V8 keeps a substring of 13 characters or more as a slice of the string it was cut from, which keeps that
 * whole string alive: a token stored in the index gets a copy of its own, or every document's text would stay
 * in memory through its longer tokens (its CVE id, for one).
 */
function ownCopy(token: string): string {
  return token.length < 13 ? token : (JSON.parse(JSON.stringify(token)) as string);
}

/**
 * Builds the index a page of documents at a time, in any order: it keeps each document's id, publication time
 * and token slots (one Int32 each), never its text, and ranks the documents only at the end. Posting lists
 * are then filled in rank order, so each comes out sorted with no per-token array on the way.
 */
export class CveSearchIndexBuilder {
  private readonly ids: string[] = [];
  private readonly published: string[] = [];
  private readonly slots = new Map<string, number>();
  /** Every document's distinct token slots, end to end; document d's are docSlots[docStart[d] … docStart[d + 1]). */
  private readonly docSlots = new GrowingInts(1 << 16);
  private readonly docStart = new GrowingInts(1 << 12);
  /** Per slot, the last document it was seen in (a token repeated within a document is posted once). */
  private readonly seenIn = new GrowingInts(1 << 12);

  constructor() {
    this.docStart.push(0);
  }

  add(doc: IndexDoc): void {
    const d = this.ids.length;
    this.ids.push(doc.id);
    this.published.push(doc.published);
    forEachToken(doc.text, (token) => {
      let slot = this.slots.get(token);
      if (slot === undefined) {
        slot = this.slots.size;
        this.slots.set(ownCopy(token), slot);
        this.seenIn.push(-1);
      }
      if (this.seenIn.values[slot] === d) return;
      this.seenIn.values[slot] = d;
      this.docSlots.push(slot);
    });
    this.docStart.push(this.docSlots.length);
  }

  finish(): CveSearchIndex {
    const { ids, published } = this;
    const count = ids.length;
    const rankOrder = Array.from({ length: count }, (_, d) => d).sort((a, b) =>
      compareByRank(ids[a] as string, published[a] as string, ids[b] as string, published[b] as string),
    );
    const vocabulary = this.slots.size;
    const docSlots = this.docSlots.values;
    const docStart = this.docStart.values;
    const total = this.docSlots.length;
    const offsets = new Int32Array(vocabulary + 1);
    for (let i = 0; i < total; i++) {
      const slot = docSlots[i] as number;
      offsets[slot + 1] = (offsets[slot + 1] as number) + 1;
    }
    for (let slot = 0; slot < vocabulary; slot++)
      offsets[slot + 1] = (offsets[slot + 1] as number) + (offsets[slot] as number);
    const postings = new Int32Array(total);
    const next = offsets.slice(0, vocabulary);
    rankOrder.forEach((d, ordinal) => {
      for (let i = docStart[d] as number; i < (docStart[d + 1] as number); i++) {
        const slot = docSlots[i] as number;
        postings[next[slot] as number] = ordinal;
        next[slot] = (next[slot] as number) + 1;
      }
    });
    const bitsets = new Map<number, Uint32Array>();
    const denseFrom = Math.max(64, count / 32);
    const words = Math.ceil(count / 32);
    for (let slot = 0; slot < vocabulary; slot++) {
      const from = offsets[slot] as number;
      const to = offsets[slot + 1] as number;
      if (to - from < denseFrom) continue;
      const bits = new Uint32Array(words);
      for (let i = from; i < to; i++) {
        const ordinal = postings[i] as number;
        bits[ordinal >>> 5] = (bits[ordinal >>> 5] as number) | (1 << (ordinal & 31));
      }
      bitsets.set(slot, bits);
    }
    return new CveSearchIndex(
      rankOrder.map((d) => ids[d] as string),
      this.slots,
      offsets,
      postings,
      bitsets,
    );
  }
}

/** Walks the shortest list, testing each document against the others (a bit test, or a seek). */
function intersectLists(postings: Posting[], limit: number, hits: number[]): number {
  const [smallest, ...others] = postings as [Posting, ...Posting[]];
  if (others.length === 0) {
    for (let i = 0; i < Math.min(limit, smallest.list.length); i++) hits.push(smallest.list[i] as number);
    return smallest.list.length;
  }
  let total = 0;
  const cursors = new Array<number>(others.length).fill(0);
  outer: for (const ordinal of smallest.list) {
    for (let j = 0; j < others.length; j++) {
      const other = others[j] as Posting;
      if (other.bits) {
        if (((other.bits[ordinal >>> 5] as number) & (1 << (ordinal & 31))) === 0) continue outer;
        continue;
      }
      const at = seek(other.list, cursors[j] as number, ordinal);
      cursors[j] = at;
      if (at === other.list.length) break outer;
      if (other.list[at] !== ordinal) continue outer;
    }
    total++;
    if (hits.length < limit) hits.push(ordinal);
  }
  return total;
}

/** Every term is common: AND the bitsets word by word, count the bits, collect the first `limit`. */
function intersectBitsets(bitsets: Uint32Array[], limit: number, hits: number[]): number {
  const [first, ...rest] = bitsets as [Uint32Array, ...Uint32Array[]];
  let total = 0;
  for (let w = 0; w < first.length; w++) {
    let word = first[w] as number;
    for (let j = 0; j < rest.length && word !== 0; j++) word &= (rest[j] as Uint32Array)[w] as number;
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
