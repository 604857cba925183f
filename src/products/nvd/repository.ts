// Queries over this family's tables. Works on the store's database or on a transaction's.
import type { Kysely, Selectable } from "kysely";
import type { KevEntry, NormalisedCve } from "./normalise.ts";
import { searchTextOf } from "./normalise.ts";
import type { NvdCveTable, NvdKevTable, NvdTables } from "./tables.ts";

export type CveRow = Selectable<NvdCveTable>;
export type KevRow = Selectable<NvdKevTable>;

interface CveToStore {
  cve: NormalisedCve;
  /** The `cve` object as NVD sent it. */
  raw: unknown;
}

interface IndexRow {
  id: string;
  published: string;
  search_text: string;
}

export interface IndexPageRow extends IndexRow {
  last_modified: string;
}

const BATCH = 100;

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

export class NvdRepository {
  private readonly db: Kysely<NvdTables>;

  constructor(db: Kysely<NvdTables>) {
    this.db = db;
  }

  /** Over the store's database: the core types it with its own tables only. */
  static of(store: { db: unknown }): NvdRepository {
    return new NvdRepository(store.db as Kysely<NvdTables>);
  }

  /**
   * Inserts or updates records; an update never replaces a record with an older revision (a page fetched
   * before a lookup may be written after it). `origin` is kept from the first insert.
   */
  async upsertCves(
    cves: CveToStore[],
    origin: "sync" | "lookup",
    fetchedAt: string,
    recordedSample: boolean,
  ): Promise<void> {
    if (cves.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const batch of batches(cves)) {
        await trx
          .insertInto("nvd_cves")
          .values(
            batch.map(({ cve, raw }) => ({
              id: cve.id,
              published: cve.published,
              last_modified: cve.lastModified,
              vuln_status: cve.vulnStatus,
              severity: cve.cvss?.baseSeverity ?? null,
              score: cve.cvss?.baseScore ?? null,
              search_text: searchTextOf(cve),
              json: JSON.stringify(raw),
              origin,
              fetched_at: fetchedAt,
              recorded_sample: recordedSample ? 1 : 0,
            })),
          )
          .onConflict((oc) =>
            oc
              .column("id")
              .doUpdateSet((eb) => ({
                published: eb.ref("excluded.published"),
                last_modified: eb.ref("excluded.last_modified"),
                vuln_status: eb.ref("excluded.vuln_status"),
                severity: eb.ref("excluded.severity"),
                score: eb.ref("excluded.score"),
                search_text: eb.ref("excluded.search_text"),
                json: eb.ref("excluded.json"),
                fetched_at: eb.ref("excluded.fetched_at"),
                recorded_sample: eb.ref("excluded.recorded_sample"),
              }))
              .where((eb) => eb("nvd_cves.last_modified", "<=", eb.ref("excluded.last_modified"))),
          )
          .execute();
      }
    });
  }

  getCve(id: string): Promise<CveRow | undefined> {
    return this.db.selectFrom("nvd_cves").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async getCves(ids: string[]): Promise<Map<string, CveRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom("nvd_cves").selectAll().where("id", "in", ids).execute();
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The newest last-modified time stored: the clock the searchable window is measured on. */
  async newestLastModified(): Promise<string | null> {
    const row = await this.db
      .selectFrom("nvd_cves")
      .select((eb) => eb.fn.max("last_modified").as("newest"))
      .executeTakeFirst();
    return row?.newest ?? null;
  }

  /**
   * Records modified since `cutoff`, rejected ones left out: what keyword search covers. A page at a time in
   * last-modified order (the order of its index), continuing after `after`, so a node building its search
   * index never holds every record's text at once.
   */
  searchablePage(
    cutoff: string,
    after: { lastModified: string; id: string } | null,
    limit: number,
  ): Promise<IndexPageRow[]> {
    // The lower bound of the index range is stated alone: a condition that only an OR implies makes the
    // database scan from `cutoff` on every page.
    let query = this.db
      .selectFrom("nvd_cves")
      .select(["id", "published", "search_text", "last_modified"])
      .where("last_modified", ">=", after === null ? cutoff : after.lastModified)
      .where("vuln_status", "!=", "Rejected");
    if (after !== null)
      query = query.where((eb) =>
        eb.or([eb("last_modified", ">", after.lastModified), eb("id", ">", after.id)]),
      );
    return query.orderBy("last_modified").orderBy("id").limit(limit).execute();
  }

  async countAll(): Promise<number> {
    const row = await this.db
      .selectFrom("nvd_cves")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Searchable records since `cutoff` by severity ("unscored" for none). */
  async severityCounts(cutoff: string): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom("nvd_cves")
      .select(["severity", (eb) => eb.fn.countAll<number>().as("n")])
      .where("last_modified", ">=", cutoff)
      .where("vuln_status", "!=", "Rejected")
      .groupBy("severity")
      .execute();
    return Object.fromEntries(rows.map((r) => [r.severity ?? "unscored", Number(r.n)]));
  }

  /** Deletes window-synced records last modified before `before` (looked-up ones stay). */
  async pruneSynced(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom("nvd_cves")
      .where("origin", "=", "sync")
      .where("last_modified", "<", before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Replaces the whole known-exploited catalogue in one transaction. */
  async replaceKev(entries: KevEntry[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("nvd_kev").execute();
      for (const batch of batches(entries)) {
        await trx
          .insertInto("nvd_kev")
          .values(
            batch.map((e) => ({
              cve_id: e.cveId,
              vendor_project: e.vendorProject,
              product: e.product,
              vulnerability_name: e.vulnerabilityName,
              date_added: e.dateAdded,
              short_description: e.shortDescription,
              required_action: e.requiredAction,
              due_date: e.dueDate,
              known_ransomware_campaign_use: e.knownRansomwareCampaignUse,
              notes: e.notes,
              cwes: JSON.stringify(e.cwes),
            })),
          )
          .execute();
      }
    });
  }

  async getKev(ids: string[]): Promise<Map<string, KevRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom("nvd_kev").selectAll().where("cve_id", "in", ids).execute();
    return new Map(rows.map((row) => [row.cve_id, row]));
  }

  /** Catalogue entries, and how many of them are stored CVE records. */
  async kevCounts(): Promise<{ entries: number; stored: number }> {
    const [entries, stored] = await Promise.all([
      this.db
        .selectFrom("nvd_kev")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom("nvd_kev")
        .innerJoin("nvd_cves", "nvd_cves.id", "nvd_kev.cve_id")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow(),
    ]);
    return { entries: Number(entries.n), stored: Number(stored.n) };
  }

  async missingSince(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("nvd_missing")
      .select("checked_at")
      .where("id", "=", id)
      .executeTakeFirst();
    return row?.checked_at;
  }

  async markMissing(id: string, checkedAt: string): Promise<void> {
    await this.db
      .insertInto("nvd_missing")
      .values({ id, checked_at: checkedAt })
      .onConflict((oc) => oc.column("id").doUpdateSet({ checked_at: checkedAt }))
      .execute();
  }

  async clearMissing(id: string): Promise<void> {
    await this.db.deleteFrom("nvd_missing").where("id", "=", id).execute();
  }

  async getState<T>(name: string): Promise<T | undefined> {
    const row = await this.db
      .selectFrom("nvd_state")
      .select("value")
      .where("name", "=", name)
      .executeTakeFirst();
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  async putState(name: string, value: unknown, now = new Date()): Promise<void> {
    const values = { value: JSON.stringify(value), updated_at: now.toISOString() };
    await this.db
      .insertInto("nvd_state")
      .values({ name, ...values })
      .onConflict((oc) => oc.column("name").doUpdateSet(values))
      .execute();
  }
}
