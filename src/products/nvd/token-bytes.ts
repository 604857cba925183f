// The search index's tokens as bytes instead of a string and a Map entry each (about 80 bytes a token at a
// million tokens, most of them seen in one document only): a hash table over the bytes while the index is
// built, then the tokens sorted and front-coded, found by binary search.
import { GrowingInts, release, temporaryBuffer, temporaryInts } from "./int-arrays.ts";

/** Longer tokens are hashes or URLs, never worth a posting list. */
export const MAX_TOKEN_LENGTH = 64;
/** A token's bytes while it is looked up: at most 3 a UTF-16 code unit. */
const scratch = new Uint8Array(3 * MAX_TOKEN_LENGTH);

/**
 * Writes the bytes of the token text[from … to) into `into` and returns their count: UTF-8, except that a lone
 * surrogate is written as a 3-byte sequence like any other code unit (WTF-8), so distinct strings always give
 * distinct bytes. At most 3 bytes a UTF-16 code unit. Bytes compare in code point order.
 */
function encodeToken(text: string, from: number, to: number, into: Uint8Array): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      into[n++] = c;
    } else if (c < 0x800) {
      into[n++] = 0xc0 | (c >> 6);
      into[n++] = 0x80 | (c & 0x3f);
    } else {
      const low = c >= 0xd800 && c <= 0xdbff && i + 1 < to ? text.charCodeAt(i + 1) : 0;
      if (low >= 0xdc00 && low <= 0xdfff) {
        const point = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        into[n++] = 0xf0 | (point >> 18);
        into[n++] = 0x80 | ((point >> 12) & 0x3f);
        into[n++] = 0x80 | ((point >> 6) & 0x3f);
        into[n++] = 0x80 | (point & 0x3f);
        i++;
      } else {
        into[n++] = 0xe0 | (c >> 12);
        into[n++] = 0x80 | ((c >> 6) & 0x3f);
        into[n++] = 0x80 | (c & 0x3f);
      }
    }
  }
  return n;
}

/** Negative, zero or positive as bytes a[aFrom … aTo) sort before, with or after b[bFrom … bTo). */
function compareBytes(
  a: Uint8Array,
  aFrom: number,
  aTo: number,
  b: Uint8Array,
  bFrom: number,
  bTo: number,
): number {
  const n = Math.min(aTo - aFrom, bTo - bFrom);
  for (let i = 0; i < n; i++) {
    const d = (a[aFrom + i] as number) - (b[bFrom + i] as number);
    if (d !== 0) return d;
  }
  return aTo - aFrom - (bTo - bFrom);
}

function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}

/**
 * Token → slot (0, 1, 2 … in order of first sight) while the index is built: the tokens' bytes end to end, where
 * each starts, and an open-addressing hash table of slots; about 25 bytes a token.
 */
export class TokenTable {
  private bytes = new Uint8Array(1 << 16);
  /** Token `slot`'s bytes are bytes[starts[slot] … starts[slot + 1]). */
  private readonly starts = new GrowingInts(1 << 12);
  /** Slot + 1 at each position, 0 where empty. */
  private table: Int32Array = new Int32Array(1 << 12);

  constructor() {
    this.starts.push(0);
  }

  get size(): number {
    return this.starts.length - 1;
  }

  /** The slot of the token text[from … to), a new one if the token is new. At most MAX_TOKEN_LENGTH long. */
  slotOf(text: string, from: number, to: number): number {
    const { starts } = this;
    const n = encodeToken(text, from, to, scratch);
    const mask = this.table.length - 1;
    for (let at = hashBytes(scratch, 0, n) & mask; ; at = (at + 1) & mask) {
      const entry = this.table[at] as number;
      if (entry === 0) {
        const slot = this.append(n);
        this.table[at] = slot + 1;
        if (this.size * 10 > this.table.length * 7) this.rehash();
        return slot;
      }
      const start = starts.values[entry - 1] as number;
      const end = starts.values[entry] as number;
      if (compareBytes(this.bytes, start, end, scratch, 0, n) === 0) return entry - 1;
    }
  }

  private append(n: number): number {
    const end = this.starts.values[this.size] as number;
    if (end + n > this.bytes.length) {
      const larger = new Uint8Array(temporaryBuffer(this.bytes.length * 2));
      larger.set(this.bytes.subarray(0, end));
      release(this.bytes);
      this.bytes = larger;
    }
    for (let i = 0; i < n; i++) this.bytes[end + i] = scratch[i] as number;
    this.starts.push(end + n);
    return this.size - 1;
  }

  private rehash(): void {
    const table = temporaryInts(this.table.length * 2);
    const mask = table.length - 1;
    const starts = this.starts.values;
    for (let slot = 0; slot < this.size; slot++) {
      let at = hashBytes(this.bytes, starts[slot] as number, starts[slot + 1] as number) & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = slot + 1;
    }
    release(this.table);
    this.table = table;
  }

  /**
   * The tokens sorted by their bytes, and where each slot went in that order. Ends the table: its arrays are
   * given back.
   */
  sorted(): { tokens: SortedTokens; positionOf: Int32Array } {
    release(this.table);
    const { bytes } = this;
    const starts = this.starts.values;
    const size = this.size;
    const order = temporaryInts(size);
    for (let slot = 0; slot < size; slot++) order[slot] = slot;
    order.sort((a, b) =>
      compareBytes(
        bytes,
        starts[a] as number,
        starts[a + 1] as number,
        bytes,
        starts[b] as number,
        starts[b + 1] as number,
      ),
    );
    const positionOf = temporaryInts(size);
    for (let position = 0; position < size; position++) positionOf[order[position] as number] = position;
    const tokens = frontCoded(bytes, starts, order);
    for (const array of [order, bytes, starts]) release(array);
    return { tokens, positionOf };
  }
}

/** Tokens a block: the first whole, the others as what they share with the one before and the rest. */
const BLOCK = 16;

/** How many leading bytes the tokens bytes[aFrom … aTo) and bytes[bFrom … bTo) share. */
function sharedPrefix(bytes: Uint8Array, aFrom: number, aTo: number, bFrom: number, bTo: number): number {
  const n = Math.min(aTo - aFrom, bTo - bFrom);
  let i = 0;
  while (i < n && bytes[aFrom + i] === bytes[bFrom + i]) i++;
  return i;
}

/** The tokens bytes[starts[slot] … starts[slot + 1]) in the order of `order`, front-coded (see SortedTokens). */
function frontCoded(bytes: Uint8Array, starts: Int32Array, order: Int32Array): SortedTokens {
  const size = order.length;
  /** What the token at `position` shares with the one before it; nothing for the first of a block. */
  const sharedWithPrevious = (position: number): number => {
    if (position % BLOCK === 0) return 0;
    const previous = order[position - 1] as number;
    const slot = order[position] as number;
    return sharedPrefix(
      bytes,
      starts[previous] as number,
      starts[previous + 1] as number,
      starts[slot] as number,
      starts[slot + 1] as number,
    );
  };
  let total = 0;
  for (let position = 0; position < size; position++) {
    const slot = order[position] as number;
    const length = (starts[slot + 1] as number) - (starts[slot] as number);
    total += (position % BLOCK === 0 ? 1 : 2) + length - sharedWithPrevious(position);
  }
  const coded = new Uint8Array(total);
  const blockStarts = new Int32Array(Math.ceil(size / BLOCK) + 1);
  let at = 0;
  for (let position = 0; position < size; position++) {
    const slot = order[position] as number;
    const from = starts[slot] as number;
    const to = starts[slot + 1] as number;
    const shared = sharedWithPrevious(position);
    if (position % BLOCK === 0) {
      blockStarts[position / BLOCK] = at;
      coded[at++] = to - from;
    } else {
      coded[at++] = shared;
      coded[at++] = to - from - shared;
    }
    for (let i = from + shared; i < to; i++) coded[at++] = bytes[i] as number;
  }
  blockStarts[blockStarts.length - 1] = at;
  return new SortedTokens(coded, blockStarts, size);
}

/** A token being decoded from its block. */
const current = new Uint8Array(3 * MAX_TOKEN_LENGTH);

/**
 * The index's tokens in byte order, front-coded in blocks of 16: a block starts with a token whole (its length,
 * then its bytes), each next token is the count of leading bytes it shares with the one before, the count of
 * the rest, and the rest. Sorted neighbours share much (cve-2026-1234, cve-2026-1235): about half the bytes,
 * and one offset a block instead of one a token. A token is found by binary search over the blocks' first
 * tokens, then a walk through its block.
 */
export class SortedTokens {
  private readonly bytes: Uint8Array;
  /** Block b is bytes[blockStarts[b] … blockStarts[b + 1]). */
  private readonly blockStarts: Int32Array;
  readonly size: number;

  constructor(bytes: Uint8Array, blockStarts: Int32Array, size: number) {
    this.bytes = bytes;
    this.blockStarts = blockStarts;
    this.size = size;
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.blockStarts.byteLength;
  }

  /** The token's position in byte order, or -1 if it is not one of them. */
  find(token: string): number {
    if (token.length > MAX_TOKEN_LENGTH) return -1;
    const { bytes, blockStarts } = this;
    const n = encodeToken(token, 0, token.length, scratch);
    // The first block whose first token sorts after the token: the token can only be in the block before.
    let low = 0;
    let high = blockStarts.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const start = blockStarts[mid] as number;
      const order = compareBytes(bytes, start + 1, start + 1 + (bytes[start] as number), scratch, 0, n);
      if (order === 0) return mid * BLOCK;
      if (order < 0) low = mid + 1;
      else high = mid;
    }
    const block = low - 1;
    if (block < 0) return -1;
    let at = blockStarts[block] as number;
    const end = blockStarts[block + 1] as number;
    let length = bytes[at++] as number;
    for (let i = 0; i < length; i++) current[i] = bytes[at++] as number;
    for (let k = 1; at < end; k++) {
      const shared = bytes[at++] as number;
      const rest = bytes[at++] as number;
      for (let i = 0; i < rest; i++) current[shared + i] = bytes[at++] as number;
      length = shared + rest;
      const order = compareBytes(current, 0, length, scratch, 0, n);
      if (order === 0) return block * BLOCK + k;
      if (order > 0) return -1;
    }
    return -1;
  }
}
