// The CNPJ, Brazil's register number of legal entities: an 8-character root (the company), 4 characters of
// establishment order (0001 is usually the head office) and 2 check digits. From July 2026 new roots and orders
// may hold capital letters (IN RFB 2.229/2024); the check digits stay numeric and are computed on the
// characters' ASCII codes minus 48, so the old all-digit rule is the same computation.
import type { IdParse } from "../../shared/query.ts";

type CnpjQuery = { kind: "cnpj"; cnpj: string } | { kind: "root"; root: string };

const quote = (raw: string) => JSON.stringify(raw.slice(0, 40));

/** The check digit of `body` (12 or 13 characters): weights 2…9 from the right, modulo 11. */
function cnpjCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const weight = ((body.length - 1 - i) % 8) + 2;
    sum += (body.charCodeAt(i) - 48) * weight;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function cnpjValid(cnpj: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj)) return false;
  const first = cnpjCheckDigit(cnpj.slice(0, 12));
  return first === Number(cnpj[12]) && cnpjCheckDigit(cnpj.slice(0, 13)) === Number(cnpj[13]);
}

/** "12.345.678/0001-95" → 12345678000195; an 8-character root is taken as the company's root. */
export function parseCnpj(raw: string, parameter = "id"): IdParse<string> {
  const text = raw.replace(/[\s./-]/g, "").toUpperCase();
  if (/^[0-9A-Z]{8}$/.test(text)) return { id: text };
  if (!/^[0-9A-Z]{12}\d{2}$/.test(text)) {
    return {
      error: `${parameter} must be a CNPJ (14 characters, punctuation allowed: 12.345.678/0001-95) or its 8-character root; got ${quote(raw)}`,
    };
  }
  if (!cnpjValid(text))
    return { error: `${parameter} ${text} is not a valid CNPJ: its check digits do not match` };
  return { id: text };
}

export function cnpjQuery(id: string): CnpjQuery {
  return id.length === 8 ? { kind: "root", root: id } : { kind: "cnpj", cnpj: id };
}
