// Swiss company identifiers, checked before any payment: the UID (CHE and 9 digits whose last is a mod-11 check
// digit over the first 8 with weights 5 4 3 2 7 6 5 4; a remainder giving 10 is never issued) or Zefix's
// internal EHRA-ID (a positive integer). UIDs are cached as CHE123456789, EHRA-IDs as their digits.
import type { IdParse } from "../../shared/query.ts";

const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4];

/** The check digit of the first 8 UID digits, or null when the scheme has none for them (remainder 10). */
function uidCheckDigit(first8: string): number | null {
  const sum = WEIGHTS.reduce((total, weight, i) => total + weight * Number(first8[i]), 0);
  const check = 11 - (sum % 11);
  if (check === 11) return 0;
  return check === 10 ? null : check;
}

/** CHE105829940 → CHE-105.829.940 */
export function formatUid(uid: string): string {
  const digits = uid.replace(/\D/g, "");
  return `CHE-${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}`;
}

export function parseSwissCompanyId(raw: string, parameter = "id"): IdParse<string> {
  const compact = raw.replace(/[\s.-]/g, "").toUpperCase();
  const uid = /^CHE(\d{9})(MWST|TVA|IVA|HR|RC|RI)?$/.exec(compact);
  if (uid) {
    const digits = uid[1] as string;
    if (uidCheckDigit(digits.slice(0, 8)) !== Number(digits[8])) {
      return {
        error: `${parameter} ${formatUid(digits)} is not a valid UID: its check digit does not match`,
      };
    }
    return { id: `CHE${digits}` };
  }
  if (/^\d{1,12}$/.test(compact) && !/^0+$/.test(compact)) return { id: String(Number(compact)) };
  return {
    error: `${parameter} must be a UID (CHE-123.456.789) or a Zefix EHRA-ID (digits); got ${JSON.stringify(raw.slice(0, 40))}`,
  };
}
