// Czechia: ARES, the Ministry of Finance's register of economic subjects (REST API v3, "ekonomicke-subjekty-v-be").
//
// Endpoints (the ARES OpenAPI as public clients quote it): GET /ekonomicke-subjekty/{ico} (404
// {"kod":"NENALEZENO","subKod":"VYSTUP_SUBJEKT_NENALEZEN"} for an unknown IČO), POST /ekonomicke-subjekty/vyhledat
// {"obchodniJmeno","start","pocet"} → {"pocetCelkem","ekonomickeSubjekty"[]}, GET /ekonomicke-subjekty-vr/{ico}
// (public-register extract: history arrays, `;` decimal money), POST /ciselniky-nazevniky/vyhledat
// {"kodCiselniku":"PravniForma","zdrojCiselniku":"res"} (legal-form names; several lists of that name).
// Real responses read (github.com/id-sign/business-registers, tests/Fixtures/Ares/, commit 459d134d):
// a name matching over 1,000 subjects is HTTP 400 {"kod":"CHYBA_VSTUPU","subKod":"VYSTUP_PRILIS_MNOHO_VYSLEDKU",
// "popis":"Zadaný dotaz vrací příliš mnoho výsledků (585 478). Povoleno je maximálně 1 000 výsledků. …"};
// `seznamRegistraci` lists every source register, NEEXISTUJICI where the subject was never entered; a VAT group
// member (Komerční banka, 45317054) has no `dic`, only `dicSkDph` (the group's CZ699…).
// No key. Limit: the Ministry may block clients above about 500 requests a minute or repeating identical
// queries; we space requests 200 ms apart across the cluster and cache.
// The name search and the code lists are POSTs with a JSON body (the client's postJson).
// Terms: MF ČR open-data conditions (https://data.mfcr.cz/cs/podminky-uzivani): name MF ČR as the source, imply
// no endorsement, do not alter the data misleadingly, link the conditions.
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import { type CompanySearch, tooBroadSearch } from "../answers.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import {
  type AresSubject,
  type CzCompany,
  type CzItem,
  isInPublicRegister,
  normaliseAresCompany,
  normaliseAresItem,
  normaliseVr,
  type VrExtract,
} from "./normalise.ts";

export const CZ_UPSTREAM: UpstreamSpec = {
  name: "gov-cz-ares",
  defaultBaseUrl: "https://ares.gov.cz/ekonomicke-subjekty-v-be/rest",
  minIntervalMs: 200,
  maxConcurrent: 2,
  timeoutMs: 7000,
  retries: 1,
};

export const CZ_MAX_MATCHES = 10;
const JSON_ACCEPT = { accept: "application/json" };
const CODES_FAMILY = "gov-co-cz-codes";
const CODES_TTL_MS = 30 * 24 * 3600_000;

function parse<T>(response: UpstreamResponse): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(
      CZ_UPSTREAM.name,
      `not JSON from ${response.url} (HTTP ${response.status})`,
      response.status,
    );
  }
}

/** ARES says "not found" with its own code; a bare 404 (no such endpoint) is an error, not an answer. */
function isNotFound(response: UpstreamResponse): boolean {
  if (response.status !== 404) return false;
  try {
    return (JSON.parse(response.body) as { kod?: string }).kod === "NENALEZENO";
  } catch {
    return false;
  }
}

/** ARES's error body: `kod` (CHYBA_VSTUPU for input errors), `subKod` the precise reason, `popis` text. */
function aresError(response: UpstreamResponse): { kod?: string; subKod?: string; popis?: string } {
  try {
    const body = JSON.parse(response.body) as unknown;
    return body && typeof body === "object" ? (body as { kod?: string; subKod?: string }) : {};
  } catch {
    return {};
  }
}

/** A name matching more subjects than ARES will list (over 1,000): HTTP 400 with this subKod. */
const TOO_MANY_RESULTS = "VYSTUP_PRILIS_MNOHO_VYSLEDKU";

function failed(response: UpstreamResponse, what: string): UpstreamError {
  const detail = response.body.slice(0, 120).replace(/\s+/g, " ");
  return new UpstreamError(CZ_UPSTREAM.name, `${what}: HTTP ${response.status} ${detail}`, response.status);
}

export async function searchCzCompanies(
  ctx: Ctx,
  q: string,
): Promise<{ search: CompanySearch<CzItem>; recordedSample: boolean }> {
  const response = await ctx.upstreams
    .client(CZ_UPSTREAM)
    .postJson(
      { path: "/ekonomicke-subjekty/vyhledat", headers: JSON_ACCEPT },
      { obchodniJmeno: q, start: 0, pocet: CZ_MAX_MATCHES },
    );
  if (response.status === 400 && aresError(response).subKod === TOO_MANY_RESULTS) {
    // The buyer's query to narrow, not ARES failing: answered 400 (not charged) by the route.
    return tooBroadSearch(
      response,
      "the name matches more than 1,000 subjects, more than ARES lists for one query; give more of the name.",
    );
  }
  if (response.status !== 200) throw failed(response, "search failed");
  const page = parse<{ pocetCelkem?: number; ekonomickeSubjekty?: AresSubject[] }>(response);
  // Foreign entities come with an icoId and no IČO: they cannot be looked up by id here, so they are left out.
  const items = (page.ekonomickeSubjekty ?? [])
    .filter((s) => typeof s.ico === "string")
    .map(normaliseAresItem);
  return {
    search: { totalCount: page.pocetCelkem ?? null, items, source: response.url },
    recordedSample: response.recordedSample,
  };
}

/**
 * Legal-form code → Czech name, from ARES's PravniForma code lists, cached for a month. ARES answers several
 * lists under that name (one per source register's version): all are read, the first name given for a code
 * wins.
 */
export async function legalFormNames(ctx: Ctx): Promise<Record<string, string>> {
  const cached = await ctx.store.cache.get<Record<string, string>>(CODES_FAMILY, "PravniForma");
  if (cached?.expiresAt && Date.parse(cached.expiresAt) > Date.now()) return cached.body;
  const response = await ctx.upstreams
    .client(CZ_UPSTREAM)
    .postJson(
      { path: "/ciselniky-nazevniky/vyhledat", headers: JSON_ACCEPT },
      { kodCiselniku: "PravniForma", zdrojCiselniku: "res" },
    );
  if (response.status !== 200) {
    if (cached) return cached.body;
    throw failed(response, "code list PravniForma");
  }
  const list = parse<{
    ciselniky?: Array<{
      polozkyCiselniku?: Array<{ kod?: string; nazev?: Array<{ kodJazyka?: string; nazev?: string }> }>;
    }>;
  }>(response);
  const names: Record<string, string> = {};
  for (const codeList of list.ciselniky ?? []) {
    for (const item of codeList.polozkyCiselniku ?? []) {
      const name = item.nazev?.find((n) => n.kodJazyka === "cs")?.nazev ?? item.nazev?.[0]?.nazev;
      if (item.kod && name && !(item.kod in names)) names[item.kod] = name;
    }
  }
  const fetchedAt = new Date().toISOString();
  await ctx.store.cache.put(CODES_FAMILY, "PravniForma", {
    body: names,
    fetchedAt,
    expiresAt: new Date(Date.now() + CODES_TTL_MS).toISOString(),
    recordedSample: response.recordedSample,
  });
  return names;
}

export async function lookupCzCompany(
  ctx: Ctx,
  ico: string,
): Promise<CompanyLookup<CzCompany & { apiUrl: string }>> {
  const client = ctx.upstreams.client(CZ_UPSTREAM);
  const core = await client.get({ path: `/ekonomicke-subjekty/${ico}`, headers: JSON_ACCEPT });
  if (isNotFound(core)) return { found: false };
  if (core.status !== 200) throw failed(core, `subject ${ico}`);
  const subject = parse<AresSubject>(core);
  if (subject.ico !== ico) throw new UpstreamError(CZ_UPSTREAM.name, `asked for ${ico}, got ${subject.ico}`);
  let register = null;
  // Only subjects ARES lists in the public register (stavZdrojeVr) have an extract there.
  if (isInPublicRegister(subject)) {
    const vr = await client.get({ path: `/ekonomicke-subjekty-vr/${ico}`, headers: JSON_ACCEPT });
    if (vr.status === 200) register = normaliseVr(parse<VrExtract>(vr), ico);
    else if (!isNotFound(vr)) throw failed(vr, `public register extract ${ico}`);
  }
  const company = normaliseAresCompany(subject, register, await legalFormNames(ctx));
  return { found: true, company: { ...company, apiUrl: core.url }, recordedSample: core.recordedSample };
}
