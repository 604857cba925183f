// What the EDGAR family keeps: cache documents (ticker list, company profiles, precomputed financials) and two
// tables, one row per cached company and one per filing, so an accession is found without knowing its company.
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { HandlerContext } from "../../catalog/product.ts";
import type { CachedDocument } from "../../store/cache.ts";
import type { DerivedFinancials } from "./derive-financials.ts";
import type { CompanyProfile } from "./profile.ts";
import type { CompanyIdentity, FilingRow } from "./submissions.ts";
import type { TickerList } from "./tickers.ts";

export const EDGAR_FAMILY = "edgar";
export const TICKERS_KEY = "tickers";
export const companyKey = (cik: string) => `company:${cik}`;
export const financialsKey = (cik: string) => `financials:${cik}`;
/** Marks a CIK SEC has no submissions for; it is asked again once the mark is a day old. */
export const missingKey = (cik: string) => `missing:${cik}`;
/** Marks an accession SEC has no folder for under that CIK. */
export const absentKey = (cik: string, accession: string) => `absent:${cik}:${accession}`;

/** The financials document: derived at warm time, or why there is none. */
export type StoredFinancials =
  | ({ ok: true; source: string } & Omit<DerivedFinancials, "highlights">)
  | { ok: false; cik: string; entityName: string; source: string; factsError: string };

/** What a filing answer needs of its company. */
type CompanyBrief = Pick<CompanyIdentity, "name" | "tickers" | "exchanges" | "sic" | "sicDescription">;

interface EdgarCompaniesTable {
  cik: string;
  name: string;
  brief: string;
  fetched_at: string;
  recorded_sample: number;
  submissions_url: string;
  filings: number;
  oldest_filing: string | null;
  newest_filing: string | null;
  has_facts: number;
}

interface EdgarFilingsTable {
  accession: string;
  cik: string;
  filing_date: string;
  form: string;
  row: string;
}

interface EdgarTables {
  edgar_companies: EdgarCompaniesTable;
  edgar_filings: EdgarFilingsTable;
}

export const EDGAR_MIGRATIONS: Record<string, Migration> = {
  "0100_edgar_filings": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("edgar_companies")
        .addColumn("cik", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("brief", "text", (c) => c.notNull())
        .addColumn("fetched_at", "text", (c) => c.notNull())
        .addColumn("recorded_sample", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("submissions_url", "text", (c) => c.notNull())
        .addColumn("filings", "integer", (c) => c.notNull())
        .addColumn("oldest_filing", "text")
        .addColumn("newest_filing", "text")
        .addColumn("has_facts", "integer", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("edgar_filings")
        .addColumn("accession", "text", (c) => c.notNull())
        .addColumn("cik", "text", (c) => c.notNull())
        .addColumn("filing_date", "text", (c) => c.notNull())
        .addColumn("form", "text", (c) => c.notNull())
        .addColumn("row", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("edgar_filings_pk", ["accession", "cik"])
        .execute();
      await db.schema.createIndex("edgar_filings_cik_idx").on("edgar_filings").columns(["cik"]).execute();
    },
  },
};

type StoreContext = Pick<HandlerContext, "store">;

function edgarDb(ctx: StoreContext): Kysely<EdgarTables> {
  return ctx.store.db as unknown as Kysely<EdgarTables>;
}

export interface CompanyRecord {
  cik: string;
  name: string;
  brief: CompanyBrief;
  fetchedAt: string;
  recordedSample: boolean;
  submissionsUrl: string;
  filings: number;
  oldestFiling: string | null;
  newestFiling: string | null;
  hasFacts: boolean;
}

function toRecord(row: EdgarCompaniesTable): CompanyRecord {
  return {
    cik: row.cik,
    name: row.name,
    brief: JSON.parse(row.brief) as CompanyBrief,
    fetchedAt: row.fetched_at,
    recordedSample: row.recorded_sample === 1,
    submissionsUrl: row.submissions_url,
    filings: Number(row.filings),
    oldestFiling: row.oldest_filing,
    newestFiling: row.newest_filing,
    hasFacts: row.has_facts === 1,
  };
}

interface CompanySnapshot {
  profile: CompanyProfile;
  rows: FilingRow[];
  /** Absent when only the submissions were refreshed: the stored financials stay as they are. */
  financials?: StoredFinancials;
  fetchedAt: string;
  recordedSample: boolean;
}

const INSERT_CHUNK = 200;

/**
 * Parsed financials documents read in the last few seconds, per store, for the companies asked about most
 * recently: a repeated request skips reading and parsing a document of a few hundred kilobytes. Writes through
 * saveCompany drop the entry; other nodes' writes show within RECENT_MS (the data changes daily).
 */
const RECENT_MS = 10_000;
const RECENT_MAX = 32;
const recentFinancials = new WeakMap<
  object,
  Map<string, { at: number; doc: CachedDocument<StoredFinancials> }>
>();

function recentOf(ctx: StoreContext): Map<string, { at: number; doc: CachedDocument<StoredFinancials> }> {
  let recent = recentFinancials.get(ctx.store);
  if (!recent) {
    recent = new Map();
    recentFinancials.set(ctx.store, recent);
  }
  return recent;
}

export function forgetFinancials(ctx: StoreContext, cik: string): void {
  recentOf(ctx).delete(cik);
}

/** The company's financials document; treat it as read-only, it may be shared with other requests. */
export async function readFinancials(
  ctx: StoreContext,
  cik: string,
): Promise<CachedDocument<StoredFinancials> | undefined> {
  const recent = recentOf(ctx);
  const hit = recent.get(cik);
  if (hit && Date.now() - hit.at < RECENT_MS) return hit.doc;
  const doc = await ctx.store.cache.get<StoredFinancials>(EDGAR_FAMILY, financialsKey(cik));
  recent.delete(cik);
  if (doc) {
    recent.set(cik, { at: Date.now(), doc });
    if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value as string);
  }
  return doc;
}

/** Stores one company: its documents first, then its filing rows and registry entry in one transaction. */
export async function saveCompany(ctx: StoreContext, snapshot: CompanySnapshot): Promise<void> {
  const { profile, rows, fetchedAt, recordedSample } = snapshot;
  const common = { fetchedAt, recordedSample };
  await ctx.store.cache.putMany<CompanyProfile | StoredFinancials>(EDGAR_FAMILY, [
    { key: companyKey(profile.cik), body: profile, ...common },
    ...(snapshot.financials
      ? [{ key: financialsKey(profile.cik), body: snapshot.financials, ...common }]
      : []),
  ]);
  // After the write, so that a read racing with it cannot keep the old document.
  forgetFinancials(ctx, profile.cik);
  const brief: CompanyBrief = {
    name: profile.name,
    tickers: profile.tickers,
    exchanges: profile.exchanges,
    sic: profile.sic,
    sicDescription: profile.sicDescription,
  };
  const hasFacts = snapshot.financials ? snapshot.financials.ok : profile.factsError === null;
  const record: EdgarCompaniesTable = {
    cik: profile.cik,
    name: profile.name,
    brief: JSON.stringify(brief),
    fetched_at: fetchedAt,
    recorded_sample: recordedSample ? 1 : 0,
    submissions_url: profile.sources.submissions,
    filings: rows.length,
    oldest_filing: rows.at(-1)?.filingDate ?? null,
    newest_filing: rows[0]?.filingDate ?? null,
    has_facts: hasFacts ? 1 : 0,
  };
  await edgarDb(ctx)
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom("edgar_filings").where("cik", "=", profile.cik).execute();
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await trx
          .insertInto("edgar_filings")
          .values(
            rows.slice(i, i + INSERT_CHUNK).map((row) => ({
              accession: row.accession,
              cik: profile.cik,
              filing_date: row.filingDate,
              form: row.form,
              row: JSON.stringify(row),
            })),
          )
          .execute();
      }
      const { cik: _cik, ...update } = record;
      await trx
        .insertInto("edgar_companies")
        .values(record)
        .onConflict((oc) => oc.column("cik").doUpdateSet(update))
        .execute();
    });
}

export async function companyRecord(ctx: StoreContext, cik: string): Promise<CompanyRecord | undefined> {
  const row = await edgarDb(ctx)
    .selectFrom("edgar_companies")
    .selectAll()
    .where("cik", "=", cik)
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** Cached companies, least recently refreshed first. */
export async function companyRecords(ctx: StoreContext): Promise<CompanyRecord[]> {
  const rows = await edgarDb(ctx).selectFrom("edgar_companies").selectAll().orderBy("fetched_at").execute();
  return rows.map(toRecord);
}

export interface FoundFiling {
  cik: string;
  row: FilingRow;
  company: CompanyRecord;
}

/** Every cached company's row for one accession (co-registrants share an accession). */
export async function findFilings(ctx: StoreContext, accession: string): Promise<FoundFiling[]> {
  const rows = await edgarDb(ctx)
    .selectFrom("edgar_filings")
    .innerJoin("edgar_companies", "edgar_companies.cik", "edgar_filings.cik")
    .select([
      "edgar_filings.cik as cik",
      "edgar_filings.row as row",
      "edgar_companies.name as name",
      "edgar_companies.brief as brief",
      "edgar_companies.fetched_at as fetched_at",
      "edgar_companies.recorded_sample as recorded_sample",
      "edgar_companies.submissions_url as submissions_url",
      "edgar_companies.filings as filings",
      "edgar_companies.oldest_filing as oldest_filing",
      "edgar_companies.newest_filing as newest_filing",
      "edgar_companies.has_facts as has_facts",
    ])
    .where("edgar_filings.accession", "=", accession)
    .orderBy("edgar_filings.cik")
    .execute();
  return rows.map((r) => ({
    cik: r.cik,
    row: JSON.parse(r.row) as FilingRow,
    company: toRecord({ ...r, cik: r.cik }),
  }));
}

export async function edgarCounts(
  ctx: StoreContext,
): Promise<{ companies: number; withFacts: number; filings: number }> {
  const db = edgarDb(ctx);
  const [companies, filings] = await Promise.all([
    db
      .selectFrom("edgar_companies")
      .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("has_facts").as("facts")])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("edgar_filings")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    companies: Number(companies.n),
    withFacts: Number(companies.facts ?? 0),
    filings: Number(filings.n),
  };
}

export function tickerList(
  ctx: StoreContext,
  maxAgeMs = 60_000,
): Promise<CachedDocument<TickerList> | undefined> {
  return ctx.store.cache.getRecent<TickerList>(EDGAR_FAMILY, TICKERS_KEY, maxAgeMs);
}
