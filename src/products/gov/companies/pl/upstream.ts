// Poland: the KRS open API (Krajowy Rejestr Sądowy, Ministry of Justice), https://api-krs.ms.gov.pl/api/krs.
//
// Sources: the API's documented answers (OdpisAktualny/OdpisPelny/{krs}?rejestr=P|S&format=json,
// try P then S; the Biuletyn change feed, a JSON array of the KRS numbers changed on a day; no name search;
// DD.MM.YYYY dates, decimal-comma money, masked board members; an HTML "Przerwa techniczna" page served with
// HTTP 200 during maintenance); a public client's current-extract fixture (michal-bed/el-proyecte-grande-naspolke
// KRSMock.java: naglowekA, dane.dzial1.danePodmiotu{formaPrawna, identyfikatory{regon, nip}, nazwa},
// siedzibaIAdres{siedziba, adres}, kapital.wysokoscKapitaluZakladowego{wartosc "5000,00", waluta},
// dzial3.przedmiotDzialalnosci{przedmiotPrzewazajacejDzialalnosci, przedmiotPozostalejDzialalnosci}[{opis,
// kodDzial, kodKlasa, kodPodklasa}]); public clients' full-extract schemas and tests (a pyspark schema of
// OdpisPelny: every field a history array with nrWpisuWprow/nrWpisuWykr, naglowekP.wpis[{numerWpisu, dataWpisu,
// opis}], list items wrapped in `pozycja`; tests recorded live in 2026: a deleted company answers only in the
// full extract, its last entry "WYKREŚLENIE Z KRAJOWEGO REJESTRU SĄDOWEGO"; liquidation and bankruptcy in
// dzial6.likwidacja / postepowanieUpadlosciowe; the Biuletyn at /api/Krs/Biuletyn/{YYYY-MM-DD}?godzinaOd&godzinaDo
// — ASP.NET routes ignore case, so it is asked under this base). We read the full extract: one request gives the
// current values, the name history with the entries' dates, and deleted companies, which the current extract
// no longer serves. A number in neither register answers 404 (some clients report 204): not found.
// Limit: none published. Requests are spaced one second apart cluster-wide (at most 86,400 a day); the daily
// bulletin refresh is queued to run three seconds apart, leaving most of that to buyers' lookups.
// Terms: KRS extracts are public information (Act of 20 August 1997 on the KRS, art. 8); no licence text is
// published for the API.
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import { type KrsOdpis, normaliseKrs, odpisHeader, type PlCompany } from "./normalise.ts";

export const KRS_UPSTREAM: UpstreamSpec = {
  name: "gov-pl-krs",
  defaultBaseUrl: "https://api-krs.ms.gov.pl/api/krs",
  minIntervalMs: 1000,
  maxConcurrent: 1,
  // Full extracts of large companies run to megabytes.
  timeoutMs: 20_000,
  retries: 1,
};

const REGISTERS = ["P", "S"] as const;

/** The body as JSON, refusing a maintenance page served with HTTP 200 and any other non-JSON answer. */
function json<T>(response: UpstreamResponse): T {
  const type = response.headers.get("content-type") ?? "";
  const body = response.body.trimStart();
  if (/html/i.test(type) || body.startsWith("<")) {
    const why = /przerwa techniczna/i.test(body)
      ? "its maintenance page (Przerwa techniczna)"
      : "an HTML page";
    throw new UpstreamError(
      KRS_UPSTREAM.name,
      `${why} instead of JSON from ${response.url}: unavailable`,
      503,
    );
  }
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new UpstreamError(KRS_UPSTREAM.name, `not JSON from ${response.url}`, response.status);
  }
}

function refuseErrors(response: UpstreamResponse): void {
  if (response.status !== 200) {
    throw new UpstreamError(
      KRS_UPSTREAM.name,
      `HTTP ${response.status} from ${response.url}`,
      response.status,
    );
  }
}

export async function lookupPlCompany(
  ctx: Ctx,
  krs: string,
): Promise<CompanyLookup<PlCompany & { apiUrl: string }>> {
  const client = ctx.upstreams.client(KRS_UPSTREAM);
  for (const register of REGISTERS) {
    const response = await client.get({
      path: `/OdpisPelny/${krs}`,
      query: { rejestr: register, format: "json" },
    });
    if (response.status === 404 || response.status === 204) continue;
    refuseErrors(response);
    const doc = json<KrsOdpis>(response);
    const header = odpisHeader(doc);
    if (!header || header.krs !== krs) {
      throw new UpstreamError(KRS_UPSTREAM.name, `an extract of another entity from ${response.url}`, 200);
    }
    return {
      found: true,
      company: { ...normaliseKrs(doc, krs, register), apiUrl: response.url },
      recordedSample: response.recordedSample,
    };
  }
  return { found: false };
}

/** The KRS numbers changed on one day (YYYY-MM-DD), as the Biuletyn lists them. */
export async function fetchBulletin(ctx: Ctx, day: string): Promise<string[]> {
  const response = await ctx.upstreams
    .client(KRS_UPSTREAM)
    .get({ path: `/Biuletyn/${day}`, query: { godzinaOd: "00", godzinaDo: "23" }, background: true });
  refuseErrors(response);
  const list = json<unknown>(response);
  if (!Array.isArray(list)) {
    throw new UpstreamError(KRS_UPSTREAM.name, `the bulletin of ${day} is not a list (${response.url})`, 200);
  }
  return list.map((n) => String(n));
}
