// The KRS number, checked before any payment: up to 10 digits, served and cached zero-padded to 10.
import type { IdParse } from "../../shared/query.ts";

export function parseKrs(raw: string, parameter = "id"): IdParse<string> {
  const digits = raw.replace(/[\s-]/g, "");
  if (!/^\d{1,10}$/.test(digits) || /^0+$/.test(digits)) {
    return {
      error: `${parameter} must be a KRS number: 10 digits (shorter numbers are zero-padded); got ${JSON.stringify(raw.slice(0, 40))}`,
    };
  }
  return { id: digits.padStart(10, "0") };
}
