// Company identifiers checked before any payment: their lengths and, where the scheme has one, the check
// digit. A malformed id is a 400 naming the parameter; a well-formed one is returned in its canonical form.
import type { IdParse } from "../shared/query.ts";

const quote = (raw: string) => JSON.stringify(raw.slice(0, 40));

/** French SIREN: 9 digits (spaces allowed) whose Luhn sum is a multiple of 10. */
export function parseSiren(raw: string, parameter = "id"): IdParse<string> {
  const digits = raw.replace(/[\s.]/g, "");
  if (!/^\d{9}$/.test(digits)) return { error: `${parameter} must be a 9-digit SIREN; got ${quote(raw)}` };
  if (!luhnValid(digits)) {
    return { error: `${parameter} ${digits} is not a valid SIREN: its Luhn check digit does not match` };
  }
  return { id: digits };
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The IČO check digit (Czech and Slovak scheme): weights 8…2 on the first seven digits, c = 11 − (sum mod 11),
 * 10 → 0 and 11 → 1.
 */
export function icoCheckDigit(first7: string): number {
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(first7[i]) * (8 - i);
  const c = 11 - (sum % 11);
  return c === 10 ? 0 : c === 11 ? 1 : c;
}

/** Czech IČO: exactly 8 digits with a valid check digit. */
export function parseCzIco(raw: string, parameter = "id"): IdParse<string> {
  const digits = raw.replace(/\s/g, "");
  if (!/^\d{8}$/.test(digits)) {
    return {
      error: `${parameter} must be an 8-digit IČO (pad shorter numbers with leading zeros); got ${quote(raw)}`,
    };
  }
  if (icoCheckDigit(digits.slice(0, 7)) !== Number(digits[7])) {
    return { error: `${parameter} ${digits} is not a valid IČO: its check digit does not match` };
  }
  return { id: digits };
}

/** Slovak IČO: 6 to 8 digits, served and cached in its 8-digit form (leading zeros added). */
export function parseSkIco(raw: string, parameter = "id"): IdParse<string> {
  const digits = raw.replace(/\s/g, "");
  if (!/^\d{6,8}$/.test(digits))
    return { error: `${parameter} must be an IČO of 6 to 8 digits; got ${quote(raw)}` };
  return { id: digits.padStart(8, "0") };
}

/**
 * UK company number: 8 characters, digits or a two-letter prefix (SC, NI, OC, …) and six digits; shorter
 * numbers are zero-padded as Companies House pads them (445790 → 00445790, SC12345 → SC012345).
 */
export function parseUkCompanyNumber(raw: string, parameter = "companyNumber"): IdParse<string> {
  const text = raw.replace(/\s/g, "").toUpperCase();
  const match = /^([A-Z]{1,2})?(\d{1,8})$/.exec(text);
  if (match) {
    const prefix = match[1] ?? "";
    const digits = match[2] as string;
    if (prefix.length + digits.length <= 8) return { id: prefix + digits.padStart(8 - prefix.length, "0") };
  }
  return {
    error: `${parameter} must be a Companies House number: 8 digits, or 2 letters and 6 digits (e.g. 00445790, SC123456); got ${quote(raw)}`,
  };
}
