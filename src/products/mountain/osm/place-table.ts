// The places of the catalogue in columns rather than one object each: a million places as objects cost about
// 500 bytes apiece (16 fields, their strings, a map entry), in columns about 120. Text is kept as UTF-8 bytes,
// values that repeat (type, country, area, currency, fetch time) as codes into a small dictionary, and ids as
// OSM's element type and number, with their order, so a place is found by id with a binary search. A place becomes an
// object only when a request reads it; its address and cuisine are decoded only if read.
import { release, temporaryBuffer } from "../../../native-memory.ts";
import type { PlaceType } from "../shared/params.ts";
import type { Place } from "./normalise.ts";

export interface IndexedPlace extends Place {
  country: string;
  area: string;
  currency: string;
  fetchedAt: string;
  recordedSample: boolean;
  menuItemCount: number;
}

const OSM_KINDS = ["node", "way", "relation"] as const;
const OSM_ID = /^osm-(node|way|relation)-(\d+)$/;

/** UTF-8 text, one entry per place (null allowed), appended in order. */
class TextColumn {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  /** Entry i is bytes[ends[i - 1] … ends[i]) (ends[-1] being 0). */
  private ends: Uint32Array;
  private nulls: Uint8Array;
  private count = 0;

  constructor(capacity: number) {
    this.ends = new Uint32Array(capacity);
    this.nulls = new Uint8Array(capacity);
  }

  push(text: string | null): void {
    if (text === null) this.nulls[this.count] = 1;
    else {
      const needed = this.used + text.length * 3;
      if (needed > this.bytes.length)
        this.bytes = resized(this.bytes, Math.max(needed, this.bytes.length * 2));
      this.used += ENCODER.encodeInto(text, this.bytes.subarray(this.used)).written;
    }
    this.ends[this.count++] = this.used;
  }

  grow(capacity: number): void {
    this.ends = resized(this.ends, capacity);
    this.nulls = resized(this.nulls, capacity);
  }

  /** Drops the spare capacity once every entry is in. */
  seal(): void {
    this.bytes = sealed(this.bytes, this.used);
    this.ends = sealed(this.ends, this.count);
    this.nulls = sealed(this.nulls, this.count);
  }

  get(i: number): string | null {
    if (this.nulls[i] === 1) return null;
    return DECODER.decode(this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1], this.ends[i]));
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.ends.byteLength + this.nulls.byteLength;
  }
}

const ENCODER = new TextEncoder();

type Column = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/**
 * A copy of `array` with room for `length` values, while the table is filled: on a buffer that is handed back as
 * soon as the next one replaces it (native-memory.ts), so a million places read in pages leave no freed arrays
 * resident behind the columns.
 */
function resized<A extends Column>(array: A, length: number): A {
  const Kind = array.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => A;
  const larger = new Kind(temporaryBuffer(length * array.BYTES_PER_ELEMENT), 0, length);
  larger.set(array.subarray(0, Math.min(array.length, length)) as never);
  release(array);
  return larger;
}

/** The first `length` values of a column being filled, as the column kept; the filling one is handed back. */
function sealed<A extends Column>(array: A, length: number): A {
  const kept = array.slice(0, length) as A;
  release(array);
  return kept;
}
const DECODER = new TextDecoder();

/** Values that repeat, as 16-bit codes into their list of distinct values. */
class CodeColumn {
  private readonly values: string[] = [];
  private readonly codeOf = new Map<string, number>();
  private codes: Uint16Array | Uint32Array;

  constructor(capacity: number) {
    this.codes = new Uint16Array(capacity);
  }

  set(i: number, value: string): void {
    let code = this.codeOf.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.codeOf.set(value, code);
      if (code === 0x10000) this.codes = Uint32Array.from(this.codes);
    }
    this.codes[i] = code;
  }

  get(i: number): string {
    return this.values[this.codes[i] as number] as string;
  }

  grow(capacity: number): void {
    this.codes = resized(this.codes, capacity);
  }

  seal(size: number): void {
    this.codes = sealed(this.codes, size);
  }

  get byteLength(): number {
    return this.codes.byteLength + this.values.reduce((n, v) => n + 64 + v.length * 2, 0);
  }
}

export class PlaceTable {
  size = 0;
  lat: Float64Array;
  lon: Float64Array;
  private osmKind: Uint8Array;
  private osmNumber: Float64Array;
  private menuItems: Uint32Array;
  private sample: Uint8Array;
  /** Positions in id order (element type, then number), for finding a place by id. */
  private byId = new Uint32Array(0);
  private readonly text: Record<"name" | "cuisine" | "address" | "hours" | "phone" | "website", TextColumn>;
  private readonly codes: Record<"type" | "country" | "area" | "currency" | "fetchedAt", CodeColumn>;

  /** Room for `capacity` places to start with (it grows), added with `push`, then `seal`ed. */
  constructor(capacity: number) {
    this.lat = new Float64Array(capacity);
    this.lon = new Float64Array(capacity);
    this.osmKind = new Uint8Array(capacity);
    this.osmNumber = new Float64Array(capacity);
    this.menuItems = new Uint32Array(capacity);
    this.sample = new Uint8Array(capacity);
    const text = () => new TextColumn(capacity);
    this.text = {
      name: text(),
      cuisine: text(),
      address: text(),
      hours: text(),
      phone: text(),
      website: text(),
    };
    const code = () => new CodeColumn(capacity);
    this.codes = { type: code(), country: code(), area: code(), currency: code(), fetchedAt: code() };
  }

  static of(places: readonly IndexedPlace[]): PlaceTable {
    const table = new PlaceTable(places.length);
    for (const place of places) table.push(place);
    table.seal();
    return table;
  }

  /** Adds a place (in any order; each id once). */
  push(p: IndexedPlace): void {
    const i = this.size;
    if (i === this.lat.length) this.grow(Math.max(16, i * 2));
    const [kind, number] = osmKey(p.id);
    this.osmKind[i] = kind;
    this.osmNumber[i] = number;
    this.lat[i] = p.lat;
    this.lon[i] = p.lon;
    this.menuItems[i] = p.menuItemCount;
    this.sample[i] = p.recordedSample ? 1 : 0;
    this.text.name.push(p.name);
    this.text.cuisine.push(p.cuisine ? JSON.stringify(p.cuisine) : null);
    this.text.address.push(p.address ? JSON.stringify(p.address) : null);
    this.text.hours.push(p.hours);
    this.text.phone.push(p.phone);
    this.text.website.push(p.website);
    this.codes.type.set(i, p.type);
    this.codes.country.set(i, p.country);
    this.codes.area.set(i, p.area);
    this.codes.currency.set(i, p.currency);
    this.codes.fetchedAt.set(i, p.fetchedAt);
    this.size++;
  }

  private grow(capacity: number): void {
    this.lat = resized(this.lat, capacity);
    this.lon = resized(this.lon, capacity);
    this.osmKind = resized(this.osmKind, capacity);
    this.osmNumber = resized(this.osmNumber, capacity);
    this.menuItems = resized(this.menuItems, capacity);
    this.sample = resized(this.sample, capacity);
    for (const column of [...Object.values(this.text), ...Object.values(this.codes)]) column.grow(capacity);
  }

  /** Drops the room left over. */
  seal(): void {
    const n = this.size;
    this.lat = sealed(this.lat, n);
    this.lon = sealed(this.lon, n);
    this.osmKind = sealed(this.osmKind, n);
    this.osmNumber = sealed(this.osmNumber, n);
    this.menuItems = sealed(this.menuItems, n);
    this.sample = sealed(this.sample, n);
    for (const column of Object.values(this.text)) column.seal();
    for (const column of Object.values(this.codes)) column.seal(n);
    // OSM numbers stay below 2^41, so element type and number make one exact double.
    const key = (i: number) => (this.osmKind[i] as number) * 2 ** 44 + (this.osmNumber[i] as number);
    this.byId = new Uint32Array(n).map((_, i) => i).sort((a, b) => key(a) - key(b));
    for (let j = 1; j < n; j++) {
      if (key(this.byId[j] as number) === key(this.byId[j - 1] as number))
        throw new Error(`place ${this.at(this.byId[j] as number).id} was added twice`);
    }
  }

  /** The place at position i, as an object (address and cuisine decoded when read). */
  at(i: number): IndexedPlace {
    const { text } = this;
    return {
      id: `osm-${OSM_KINDS[this.osmKind[i] as number]}-${this.osmNumber[i]}`,
      name: text.name.get(i) as string,
      type: this.codes.type.get(i) as PlaceType,
      get cuisine() {
        const json = text.cuisine.get(i);
        return json === null ? null : (JSON.parse(json) as string[]);
      },
      get address() {
        const json = text.address.get(i);
        return json === null ? null : (JSON.parse(json) as Record<string, string>);
      },
      lat: this.lat[i] as number,
      lon: this.lon[i] as number,
      hours: text.hours.get(i),
      phone: text.phone.get(i),
      website: text.website.get(i),
      country: this.codes.country.get(i),
      area: this.codes.area.get(i),
      currency: this.codes.currency.get(i),
      fetchedAt: this.codes.fetchedAt.get(i),
      recordedSample: this.sample[i] === 1,
      menuItemCount: this.menuItems[i] as number,
    };
  }

  /** Position of the place with this id, or -1. */
  indexOf(id: string): number {
    const match = OSM_ID.exec(id);
    if (!match) return -1;
    const kind = OSM_KINDS.indexOf(match[1] as (typeof OSM_KINDS)[number]);
    const number = Number(match[2]);
    let low = 0;
    let high = this.size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const at = this.byId[mid] as number;
      const k = this.osmKind[at] as number;
      if (k < kind || (k === kind && (this.osmNumber[at] as number) < number)) low = mid + 1;
      else high = mid;
    }
    const at = this.byId[low];
    return at !== undefined && this.osmKind[at] === kind && this.osmNumber[at] === number ? at : -1;
  }

  has(id: string): boolean {
    return this.indexOf(id) >= 0;
  }

  get(id: string): IndexedPlace | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.at(i);
  }

  menuItemCount(i: number): number {
    return this.menuItems[i] as number;
  }

  recordedSample(i: number): boolean {
    return this.sample[i] === 1;
  }

  *values(): IterableIterator<IndexedPlace> {
    for (let i = 0; i < this.size; i++) yield this.at(i);
  }

  /** Bytes of the columns (typed arrays and the dictionaries' values), for the status route. */
  get byteLength(): number {
    let bytes = this.lat.byteLength * 2 + this.osmKind.byteLength + this.osmNumber.byteLength;
    bytes += this.byId.byteLength;
    bytes += this.menuItems.byteLength + this.sample.byteLength;
    for (const column of [...Object.values(this.text), ...Object.values(this.codes)])
      bytes += column.byteLength;
    return bytes;
  }
}

/** osm-<type>-<number> → [type's position in node/way/relation, number]; throws on any other id. */
function osmKey(id: string): [number, number] {
  const match = OSM_ID.exec(id);
  if (!match) throw new Error(`not an OSM place id: ${id}`);
  return [OSM_KINDS.indexOf(match[1] as (typeof OSM_KINDS)[number]), Number(match[2])];
}
