// Slovakia: RÚZ, the register of financial statements (Ministry of Finance of the Slovak Republic), open API 2.5.
//
// Sources: the API documentation (https://www.registeruz.sk/cruz-public/home/api: dates YYYY-MM-DD, periods
// YYYY-MM, attributes without a value left out of the answer, lists included; 400 for a bad request, 404 for an
// unknown id) and its rendering at https://slovakapi.dev/ruz/ (a unit in force has no `stav`; a deleted one is
// {"id","stav":"ZMAZANÉ"}, a non-public one "Neverejná"; list pages {"id":[…],"existujeDalsieId"}); real
// responses recorded in redrick/registeruz (spec/vcr/subject/*.yml, spec/vcr/financial_statement/*.yml); public
// clients of /sablona (template `nazov` a string; tables with pocetStlpcov, pocetDatovychStlpcov, hlavicka
// [{text, riadok, stlpec, sirkaStlpca, vyskaRiadku}] and riadky [{oznacenie, cisloRiadku, text}]; a report
// table's data is the template's rows × pocetDatovychStlpcov cells, row by row, the current period in the
// last-but-one data column and the prior period in the last — for a 4-column assets table Brutto, Korekcia,
// Netto, prior Netto).
// GET /uctovne-jednotky?zmenene-od=&ico= (zmenene-od is mandatory; this is both the change feed and the lookup by
// IČO); GET /uctovna-jednotka?id=; GET /uctovna-zavierka?id= (obdobieOd/Do, datumZostaveniaK, datumPodania,
// datumSchvalenia, typ, idUctovnychVykazov); GET /uctovny-vykaz?id= (idSablony, mena, pristupnostDat Verejné|
// Verejné prílohy|Neverejné, obsah.tabulky[].data flat string arrays, prilohy[]); GET /sablona?id=.
// Attachments: /domain/financialreport/attachment/{id}; generated PDF: /domain/financialreport/pdf/{reportId}.
// No key, no published limit (clients hold themselves to about 30 a minute): one request a second, cluster-wide;
// templates are cached for 30 days (they change about once a year). Terms: the documentation has a licence
// section whose text we have not read (not in our sources); the answers point to it.
import { UpstreamError, type UpstreamResponse, type UpstreamSpec } from "../../../../upstream/client.ts";
import type { CompanyLookup, Ctx } from "../register.ts";
import {
  type AccountsBody,
  byLatest,
  documentsOf,
  MAX_STATEMENTS,
  mapThroughTemplate,
  normaliseStatement,
  type RuzReport,
  type RuzStatement,
  type RuzTemplate,
  type RuzUnit,
  type StatementBody,
  unitFields,
} from "./ruz-normalise.ts";

export const RUZ_UPSTREAM: UpstreamSpec = {
  name: "gov-sk-ruz",
  defaultBaseUrl: "https://www.registeruz.sk/cruz-public/api",
  minIntervalMs: 1000,
  maxConcurrent: 1,
  timeoutMs: 10_000,
  retries: 2,
};

const TEMPLATES_FAMILY = "gov-acc-sk-templates";
const TEMPLATE_TTL_MS = 30 * 24 * 3600_000;

async function getJson<T>(
  ctx: Ctx,
  path: string,
  query?: Record<string, string | number>,
): Promise<{ body: T; response: UpstreamResponse }> {
  const response = await ctx.upstreams.client(RUZ_UPSTREAM).get({ path, query });
  if (response.status !== 200) {
    throw new UpstreamError(
      RUZ_UPSTREAM.name,
      `HTTP ${response.status} from ${response.url}`,
      response.status,
    );
  }
  try {
    return { body: JSON.parse(response.body) as T, response };
  } catch {
    throw new UpstreamError(RUZ_UPSTREAM.name, `not JSON from ${response.url}`, response.status);
  }
}

async function template(ctx: Ctx, id: number): Promise<RuzTemplate> {
  const key = String(id);
  const cached = await ctx.store.cache.get<RuzTemplate>(TEMPLATES_FAMILY, key);
  if (cached?.expiresAt && Date.parse(cached.expiresAt) > Date.now()) return cached.body;
  const { body, response } = await getJson<RuzTemplate>(ctx, "/sablona", { id });
  await ctx.store.cache.put(TEMPLATES_FAMILY, key, {
    body,
    fetchedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + TEMPLATE_TTL_MS).toISOString(),
    recordedSample: response.recordedSample,
  });
  return body;
}

async function reportsOf(ctx: Ctx, statement: RuzStatement): Promise<RuzReport[]> {
  const reports: RuzReport[] = [];
  for (const id of statement.idUctovnychVykazov ?? []) {
    reports.push((await getJson<RuzReport>(ctx, "/uctovny-vykaz", { id })).body);
  }
  return reports;
}

/** The latest statement's figures in euros, or why there are none. */
async function latestFigures(
  ctx: Ctx,
  latest: StatementBody | undefined,
  reports: RuzReport[],
): Promise<Pick<AccountsBody, "latestFigures" | "latestFiguresNote">> {
  const none = (note: string) => ({ latestFigures: null, latestFiguresNote: note });
  if (!latest) return none("No financial statement has been filed.");
  const withTables = reports.filter((r) => (r.obsah?.tabulky ?? []).length > 0);
  if (withTables.length === 0) {
    if (reports.some((r) => r.pristupnostDat === "Neverejné"))
      return none("The latest statement is not public.");
    return none("The latest statement was filed as documents only (no structured tables); see documents.");
  }
  const report = withTables.find((r) => r.pristupnostDat !== "Neverejné");
  if (!report) return none("The latest statement is not public.");
  if (report.mena && report.mena !== "EUR")
    return none(`The latest statement is in ${report.mena}, not euros.`);
  if (typeof report.idSablony !== "number") return none("The latest statement names no template.");
  const mapped = mapThroughTemplate(report, await template(ctx, report.idSablony), latest);
  return "figures" in mapped ? { latestFigures: mapped.figures, latestFiguresNote: null } : none(mapped.note);
}

export async function lookupSkAccounts(
  ctx: Ctx,
  ico: string,
): Promise<CompanyLookup<AccountsBody & { apiUrl: string }>> {
  const units = await getJson<{ id?: number[] }>(ctx, "/uctovne-jednotky", {
    "zmenene-od": "2000-01-01",
    ico,
  });
  let unit: RuzUnit | undefined;
  let unitResponse: UpstreamResponse | undefined;
  // The newest unit first: an IČO re-registered keeps its deleted older units.
  for (const id of [...(units.body.id ?? [])].sort((a, b) => b - a)) {
    const read = await getJson<RuzUnit>(ctx, "/uctovna-jednotka", { id });
    if (read.body.stav === "ZMAZANÉ" || read.body.ico?.padStart(8, "0") !== ico) continue;
    unit = read.body;
    unitResponse = read.response;
    break;
  }
  if (!unit || !unitResponse) return { found: false };
  const statementIds = [...(unit.idUctovnychZavierok ?? [])].sort((a, b) => b - a);
  const raw = new Map<number, RuzStatement>();
  for (const id of statementIds.slice(0, MAX_STATEMENTS)) {
    const { body } = await getJson<RuzStatement>(ctx, "/uctovna-zavierka", { id });
    if (body.stav !== "ZMAZANÉ" && typeof body.id === "number") raw.set(body.id, body);
  }
  const statements = [...raw.values()].map(normaliseStatement).sort(byLatest);
  const [latest, previous] = statements;
  const latestReports = latest ? await reportsOf(ctx, raw.get(latest.statementId) as RuzStatement) : [];
  const previousReports = previous ? await reportsOf(ctx, raw.get(previous.statementId) as RuzStatement) : [];
  const figures = await latestFigures(ctx, latest, latestReports);
  const documents = [
    ...(latest ? documentsOf(latest, latestReports) : []),
    ...(previous ? documentsOf(previous, previousReports) : []),
  ];
  return {
    found: true,
    company: {
      ...unitFields(unit, ico),
      statementCount: statementIds.length,
      statementsListed: statements.length,
      statements,
      ...figures,
      documents,
      apiUrl: unitResponse.url,
    },
    recordedSample: unitResponse.recordedSample,
  };
}
