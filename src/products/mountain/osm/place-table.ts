// What a search over the catalogue's places reads, in columns rather than one object each: coordinates, type
// and name, the time the place was fetched, whether it came from a recorded sample, and the menu counts. The
// other fields (cuisine, address, hours, phone, website, country, area, currency) stay in the store and are read
// for the places an answer lists (place-catalog.ts: placeDetails). Text is kept as UTF-8 bytes, values that
// repeat (type, fetch time) as codes into a small dictionary, and ids as OSM's element type and number, with
// their order, so a place is found by id with a binary search. A place becomes an object only when a search
// reads it.
import { release, temporaryBuffer } from "../../../native-memory.ts";
import type { PlaceType } from "../shared/params.ts";
import type { Place } from "./normalise.ts";

/** What the catalogue holds of a place in memory. */
export interface PlaceSummary {
  id: string;
  name: string;
  type: PlaceType;
  lat: number;
  lon: number;
  fetchedAt: string;
  recordedSample: boolean;
  menuItemCount: number;
}

/** A place with every field, as an answer lists it. */
export interface PlaceDetails extends Place, PlaceSummary {
  country: string;
  area: string;
  currency: string;
}

const OSM_KINDS = ["node", "way", "relation"] as const;
const OSM_ID = /^osm-(node|way|relation)-(\d+)$/;

/** UTF-8 text, one entry per place, appended in order. */
class TextColumn {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  /** Entry i is bytes[ends[i - 1] … ends[i]) (ends[-1] being 0). */
  private ends: Uint32Array;
  private count = 0;

  constructor(capacity: number) {
    this.ends = new Uint32Array(capacity);
  }

  push(text: string): void {
    const needed = this.used + text.length * 3;
    if (needed > this.bytes.length) this.bytes = resized(this.bytes, Math.max(needed, this.bytes.length * 2));
    this.used += ENCODER.encodeInto(text, this.bytes.subarray(this.used)).written;
    this.ends[this.count++] = this.used;
  }

  grow(capacity: number): void {
    this.ends = resized(this.ends, capacity);
  }

  /** Drops the spare capacity once every entry is in. */
  seal(): void {
    this.bytes = sealed(this.bytes, this.used);
    this.ends = sealed(this.ends, this.count);
  }

  get(i: number): string {
    return DECODER.decode(this.bytes.subarray(i === 0 ? 0 : this.ends[i - 1], this.ends[i]));
  }

  get byteLength(): number {
    return this.bytes.byteLength + this.ends.byteLength;
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

/** A place as the catalogue is filled: its summary without the menu count, which the table is given apart. */
export type SummaryRow = Omit<PlaceSummary, "menuItemCount">;

export class PlaceTable {
  size = 0;
  lat: Float64Array;
  lon: Float64Array;
  private osmKind: Uint8Array;
  private osmNumber: Float64Array;
  private sample: Uint8Array;
  /** Positions in id order (element type, then number), for finding a place by id. */
  private byId = new Uint32Array(0);
  private readonly names: TextColumn;
  private readonly codes: Record<"type" | "fetchedAt", CodeColumn>;
  /** Menu item counts of the few places with a menu, by position. */
  private readonly menuItems = new Map<number, number>();

  /** Room for `capacity` places to start with (it grows), added with `push`, then `seal`ed. */
  constructor(capacity: number) {
    this.lat = new Float64Array(capacity);
    this.lon = new Float64Array(capacity);
    this.osmKind = new Uint8Array(capacity);
    this.osmNumber = new Float64Array(capacity);
    this.sample = new Uint8Array(capacity);
    this.names = new TextColumn(capacity);
    this.codes = { type: new CodeColumn(capacity), fetchedAt: new CodeColumn(capacity) };
  }

  static of(places: readonly PlaceSummary[]): PlaceTable {
    const table = new PlaceTable(places.length);
    for (const place of places) table.push(place, place.menuItemCount);
    table.seal();
    return table;
  }

  /** Adds a place (in any order; each id once). */
  push(p: SummaryRow, menuItemCount: number): void {
    const i = this.size;
    if (i === this.lat.length) this.grow(Math.max(16, i * 2));
    const [kind, number] = osmKey(p.id);
    this.osmKind[i] = kind;
    this.osmNumber[i] = number;
    this.lat[i] = p.lat;
    this.lon[i] = p.lon;
    this.sample[i] = p.recordedSample ? 1 : 0;
    if (menuItemCount > 0) this.menuItems.set(i, menuItemCount);
    this.names.push(p.name);
    this.codes.type.set(i, p.type);
    this.codes.fetchedAt.set(i, p.fetchedAt);
    this.size++;
  }

  private grow(capacity: number): void {
    this.lat = resized(this.lat, capacity);
    this.lon = resized(this.lon, capacity);
    this.osmKind = resized(this.osmKind, capacity);
    this.osmNumber = resized(this.osmNumber, capacity);
    this.sample = resized(this.sample, capacity);
    this.names.grow(capacity);
    for (const column of Object.values(this.codes)) column.grow(capacity);
  }

  /** Drops the room left over. */
  seal(): void {
    const n = this.size;
    this.lat = sealed(this.lat, n);
    this.lon = sealed(this.lon, n);
    this.osmKind = sealed(this.osmKind, n);
    this.osmNumber = sealed(this.osmNumber, n);
    this.sample = sealed(this.sample, n);
    this.names.seal();
    for (const column of Object.values(this.codes)) column.seal(n);
    // OSM numbers stay below 2^41, so element type and number make one exact double.
    const key = (i: number) => (this.osmKind[i] as number) * 2 ** 44 + (this.osmNumber[i] as number);
    this.byId = new Uint32Array(n).map((_, i) => i).sort((a, b) => key(a) - key(b));
    for (let j = 1; j < n; j++) {
      if (key(this.byId[j] as number) === key(this.byId[j - 1] as number))
        throw new Error(`place ${this.idAt(this.byId[j] as number)} was added twice`);
    }
  }

  private idAt(i: number): string {
    return `osm-${OSM_KINDS[this.osmKind[i] as number]}-${this.osmNumber[i]}`;
  }

  /** The place at position i, as an object. */
  at(i: number): PlaceSummary {
    return {
      id: this.idAt(i),
      name: this.names.get(i),
      type: this.codes.type.get(i) as PlaceType,
      lat: this.lat[i] as number,
      lon: this.lon[i] as number,
      fetchedAt: this.codes.fetchedAt.get(i),
      recordedSample: this.sample[i] === 1,
      menuItemCount: this.menuItemCount(i),
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

  get(id: string): PlaceSummary | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.at(i);
  }

  menuItemCount(i: number): number {
    return this.menuItems.get(i) ?? 0;
  }

  /** The places with a menu, and the items of their menus. */
  menuTotals(): { withMenu: number; menuItems: number } {
    let menuItems = 0;
    for (const count of this.menuItems.values()) menuItems += count;
    return { withMenu: this.menuItems.size, menuItems };
  }

  recordedSample(i: number): boolean {
    return this.sample[i] === 1;
  }

  *values(): IterableIterator<PlaceSummary> {
    for (let i = 0; i < this.size; i++) yield this.at(i);
  }

  /** Bytes of the columns (typed arrays, the dictionaries' values, the menu counts), for the status route. */
  get byteLength(): number {
    let bytes = this.lat.byteLength * 2 + this.osmKind.byteLength + this.osmNumber.byteLength;
    bytes += this.byId.byteLength + this.sample.byteLength + this.names.byteLength;
    for (const column of Object.values(this.codes)) bytes += column.byteLength;
    return bytes + this.menuItems.size * 32;
  }
}

/** osm-<type>-<number> → [type's position in node/way/relation, number]; throws on any other id. */
function osmKey(id: string): [number, number] {
  const match = OSM_ID.exec(id);
  if (!match) throw new Error(`not an OSM place id: ${id}`);
  return [OSM_KINDS.indexOf(match[1] as (typeof OSM_KINDS)[number]), Number(match[2])];
}
