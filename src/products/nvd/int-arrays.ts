// The search index builder's temporary arrays: how they are allocated and given back, and the arrays that grow
// as documents are added.

import { release, temporaryBuffer } from "../../native-memory.ts";

export { release, temporaryBuffer };

export function temporaryInts(length: number): Int32Array {
  return new Int32Array(temporaryBuffer(length * 4), 0, length);
}

type NumberArray = Int32Array | Float64Array;

interface NumberArrayKind<A extends NumberArray> {
  new (buffer: ArrayBuffer, offset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
}

/** A typed array that doubles when full (the whole new buffer is used: a mapped block may be larger). */
class Growing<A extends NumberArray> {
  values: A;
  length = 0;
  private readonly kind: NumberArrayKind<A>;

  constructor(kind: NumberArrayKind<A>, capacity: number) {
    this.kind = kind;
    this.values = new kind(temporaryBuffer(capacity * kind.BYTES_PER_ELEMENT), 0, capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const buffer = temporaryBuffer(this.values.byteLength * 2);
      const larger = new this.kind(buffer, 0, buffer.byteLength / this.kind.BYTES_PER_ELEMENT);
      larger.set(this.values);
      release(this.values);
      this.values = larger;
    }
    this.values[this.length++] = value;
  }
}

export class GrowingInts extends Growing<Int32Array> {
  constructor(capacity: number) {
    super(Int32Array, capacity);
  }
}

export class GrowingFloats extends Growing<Float64Array> {
  constructor(capacity: number) {
    super(Float64Array, capacity);
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
