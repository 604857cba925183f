// This family's tables, written with Kysely's schema builder only (SQLite now, PostgreSQL alike):
// text ISO-8601 timestamps, JSON as text, no engine-specific SQL.
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

export interface NvdCveTable {
  id: string;
  published: string;
  last_modified: string;
  vuln_status: string;
  /** From the preferred CVSS score (v4.0, v3.1, v3.0, v2); null when unscored. */
  severity: string | null;
  score: number | null;
  /** The words keyword search indexes (id, description, CWEs, vendors and products). */
  search_text: string;
  /** The `cve` object exactly as NVD sent it. */
  json: string;
  /** "sync" (a last-modified window) or "lookup" (fetched by id on a buyer's miss); set on insert only. */
  origin: string;
  fetched_at: string;
  recorded_sample: number;
}

export interface NvdKevTable {
  cve_id: string;
  vendor_project: string | null;
  product: string | null;
  vulnerability_name: string | null;
  date_added: string;
  short_description: string | null;
  required_action: string | null;
  due_date: string | null;
  known_ransomware_campaign_use: string | null;
  notes: string | null;
  /** JSON array of CWE ids. */
  cwes: string;
}

/** Ids NVD answered no record for, so repeated misses are not fetched again at once. */
interface NvdMissingTable {
  id: string;
  checked_at: string;
}

/** Small JSON state documents: the CVE sync's progress, the KEV catalogue's version and validators. */
interface NvdStateTable {
  name: string;
  value: string;
  updated_at: string;
}

export interface NvdTables {
  nvd_cves: NvdCveTable;
  nvd_kev: NvdKevTable;
  nvd_missing: NvdMissingTable;
  nvd_state: NvdStateTable;
}

export const NVD_MIGRATIONS: Record<string, Migration> = {
  "0100_nvd_cves": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("nvd_cves")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("published", "text", (c) => c.notNull())
        .addColumn("last_modified", "text", (c) => c.notNull())
        .addColumn("vuln_status", "text", (c) => c.notNull())
        .addColumn("severity", "text")
        .addColumn("score", "real")
        .addColumn("search_text", "text", (c) => c.notNull())
        .addColumn("json", "text", (c) => c.notNull())
        .addColumn("origin", "text", (c) => c.notNull())
        .addColumn("fetched_at", "text", (c) => c.notNull())
        .addColumn("recorded_sample", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex("nvd_cves_last_modified_idx")
        .on("nvd_cves")
        .column("last_modified")
        .execute();

      await db.schema
        .createTable("nvd_kev")
        .addColumn("cve_id", "text", (c) => c.primaryKey())
        .addColumn("vendor_project", "text")
        .addColumn("product", "text")
        .addColumn("vulnerability_name", "text")
        .addColumn("date_added", "text", (c) => c.notNull())
        .addColumn("short_description", "text")
        .addColumn("required_action", "text")
        .addColumn("due_date", "text")
        .addColumn("known_ransomware_campaign_use", "text")
        .addColumn("notes", "text")
        .addColumn("cwes", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("nvd_missing")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("checked_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("nvd_state")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
    },
  },
};
