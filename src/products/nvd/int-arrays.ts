// The search index builder's temporary arrays: how they are allocated and given back, and the arrays that grow
// as documents are added.

/**
 * glibc's malloc serves a block under its mmap threshold from the main heap, and raises that threshold (up to
 * 32 MB) each time it unmaps a larger freed block, which every doubling array does; freed heap memory goes
 * back to the system only from the heap's top. Left to that, the builder's temporary arrays end up in the heap
 * under the index's own arrays and stay resident as holes once freed (~70 MB at 300,000 CVEs). A block of more
 * than 32 MB is always mapped on its own and unmapped when freed, and its pages cost memory only once written:
 * a temporary array past 128 KB gets such a block.
 */
const MAPPED_BYTES = 32 * 1024 * 1024 + 4096;
const SMALL_BYTES = 128 * 1024;

export function temporaryBuffer(bytes: number): ArrayBuffer {
  return new ArrayBuffer(bytes < SMALL_BYTES ? bytes : Math.max(bytes, MAPPED_BYTES));
}

export function temporaryInts(length: number): Int32Array {
  return new Int32Array(temporaryBuffer(length * 4), 0, length);
}

/**
 * Gives the array's memory back now rather than at a later garbage collection, which keeps the build's peak
 * down and the memory it leaves behind visible at once. The array (and any other view of its buffer) is empty
 * afterwards.
 */
export function release(array: ArrayBufferView): void {
  (array.buffer as ArrayBuffer).transfer(0);
}

/** An Int32Array that doubles when full. */
export class GrowingInts {
  values: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.values = temporaryInts(capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const buffer = temporaryBuffer(this.values.byteLength * 2);
      const larger = new Int32Array(buffer, 0, buffer.byteLength / 4);
      larger.set(this.values);
      release(this.values);
      this.values = larger;
    }
    this.values[this.length++] = value;
  }
}

/** A Float64Array that doubles when full. */
export class GrowingFloats {
  values: Float64Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Float64Array(temporaryBuffer(capacity * 8), 0, capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const buffer = temporaryBuffer(this.values.byteLength * 2);
      const larger = new Float64Array(buffer, 0, buffer.byteLength / 8);
      larger.set(this.values);
      release(this.values);
      this.values = larger;
    }
    this.values[this.length++] = value;
  }
}

/**
 * Non-negative integers as varints (7 bits a byte, low bits first, the top bit set on all bytes but the last)
 * in a byte array that doubles when full: the builder's longest array, every document's token slots, where the
 * common tokens, first seen early, have small slots (1 or 2 bytes instead of 4).
 */
export class GrowingVarints {
  values: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Uint8Array(temporaryBuffer(capacity), 0, capacity);
  }

  push(value: number): void {
    if (this.length + 5 > this.values.length) {
      const buffer = temporaryBuffer(this.values.byteLength * 2);
      const larger = new Uint8Array(buffer);
      larger.set(this.values.subarray(0, this.length));
      release(this.values);
      this.values = larger;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.values[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.values[this.length++] = rest;
  }
}

/** Calls `visit` with every varint in bytes[from … to). */
export function forEachVarint(
  bytes: Uint8Array,
  from: number,
  to: number,
  visit: (value: number) => void,
): void {
  for (let at = from; at < to; ) {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++] as number;
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    visit(value);
  }
}
