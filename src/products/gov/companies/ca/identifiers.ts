// Canadian federal identifiers, checked before any payment. A corporation number is up to 8 digits (older ones
// are 6 digits and a check digit, written zero-filled or with a hyphen: 0090018, 229101-1); the open data writes
// it without leading zeros (corporationId="1007"), which is our canonical form. The business number's root
// (BN9) is 9 digits; a full program account (123456789RC0001) is reduced to its root.
import type { IdParse } from "../../shared/query.ts";

const quote = (raw: string) => JSON.stringify(raw.slice(0, 40));

export function parseCorporationId(raw: string, parameter = "corporationId"): IdParse<string> {
  const digits = raw.replace(/[\s-]/g, "");
  const significant = digits.replace(/^0+/, "");
  if (!/^\d{1,12}$/.test(digits) || !/^\d{1,8}$/.test(significant)) {
    return {
      error: `${parameter} must be a federal corporation number of up to 8 digits (e.g. 1007, 229101-1); got ${quote(raw)}`,
    };
  }
  return { id: significant };
}

export function parseBn9(raw: string, parameter = "bn9"): IdParse<string> {
  const text = raw.replace(/\s/g, "").toUpperCase();
  const match = /^(\d{9})(?:[A-Z]{2}\d{4})?$/.exec(text);
  if (!match) {
    return {
      error: `${parameter} must be the 9-digit business number root (or a full BN such as 123456789RC0001); got ${quote(raw)}`,
    };
  }
  return { id: match[1] as string };
}
