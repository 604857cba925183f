// The doctor family's tables, written with Kysely's schema builder so they run on SQLite and PostgreSQL.
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

export const doctorMigrations: Record<string, Migration> = {
  "0100_doctor_tables": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("doctor_reports")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("sku", "text", (c) => c.notNull())
        .addColumn("payer", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("body_sha256", "text", (c) => c.notNull())
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("transaction", "text")
        .addColumn("amount", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("doctor_verify_tokens")
        .addColumn("token", "text", (c) => c.primaryKey())
        .addColumn("host", "text", (c) => c.notNull())
        .addColumn("wallet", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("doctor_verify_tokens_host")
        .on("doctor_verify_tokens")
        .columns(["host", "wallet"])
        .execute();

      await db.schema
        .createTable("doctor_unknown_reasons")
        .addColumn("reason", "text", (c) => c.primaryKey())
        .addColumn("first_seen_at", "text", (c) => c.notNull())
        .addColumn("last_seen_at", "text", (c) => c.notNull())
        .addColumn("seen_count", "integer", (c) => c.notNull())
        .addColumn("sample_response", "text", (c) => c.notNull())
        .addColumn("reviewed_at", "text")
        .addColumn("resolved_code", "text")
        .execute();
    },
  },
  "0101_doctor_report_receipts": {
    async up(db: Kysely<unknown>) {
      // The signed receipt (compact JWS) of the call that produced the report.
      await db.schema.alterTable("doctor_reports").addColumn("receipt", "text").execute();
    },
  },
};
