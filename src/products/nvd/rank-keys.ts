// CVE ids and publication times as numbers, so the search index holds a Float64 per document instead of
// strings, and ranks documents by comparing numbers. Each encoding keeps the order of the strings it stands for;
// a value it cannot encode exactly is NaN, and its holder keeps the string itself beside the numbers.

/** "CVE-" + 4-digit year + "-" + a sequence number of 4 to 9 digits, zero-padded to 4 and no further. */
const CVE_ID = /^CVE-(\d{4})-(\d{4,9})$/;

function formatCveId(year: number, sequence: number): string {
  return `CVE-${String(year).padStart(4, "0")}-${String(sequence).padStart(4, "0")}`;
}

/**
 * The id as a number whose order is the rank order of ids (see compareIds): the sequence's digit count, then
 * the year, then the sequence. NaN for an id in any other shape.
 */
export function idCode(id: string): number {
  const match = CVE_ID.exec(id);
  if (!match) return Number.NaN;
  const year = Number(match[1]);
  const sequence = Number(match[2]);
  if (formatCveId(year, sequence) !== id) return Number.NaN;
  return (match[2] as string).length * 1e13 + year * 1e9 + sequence;
}

export function idOfCode(code: number): string {
  return formatCveId(Math.floor(code / 1e9) % 1e4, code % 1e9);
}

/** A longer id is a higher CVE number; ids of one length compare as strings. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The time in ms when the string is the canonical ISO 8601 form (what toISOString gives, years 0 to 9999,
 * which compare as strings in time order); NaN for any other string.
 */
export function timeCode(published: string): number {
  const ms = Date.parse(published);
  if (Number.isNaN(ms) || published.length !== 24) return Number.NaN;
  return new Date(ms).toISOString() === published ? ms : Number.NaN;
}

export function timeOfCode(ms: number): string {
  return new Date(ms).toISOString();
}
