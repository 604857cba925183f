// One set of migrations for every store; Kysely's schema builder keeps them dialect-neutral.
import { type CreateTableBuilder, type Kysely, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { isPostgres } from "./postgres-dialect.ts";

/** An integer primary key the database numbers itself (serial on PostgreSQL, autoincrement on SQLite). */
function withAutoId<T extends string, C extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C | "id"> {
  return isPostgres(db)
    ? table.addColumn("id", "serial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

const migrations: Record<string, Migration> = {
  "0001_foundation": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("cache_documents")
        .addColumn("family", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("fetched_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text")
        .addColumn("etag", "text")
        .addColumn("last_modified", "text")
        .addColumn("recorded_sample", "integer", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("cache_documents_pk", ["family", "key"])
        .execute();

      await withAutoId(db, db.schema.createTable("ledger"))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("sku", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("payer", "text")
        .addColumn("amount", "text", (c) => c.notNull())
        .addColumn("asset", "text", (c) => c.notNull())
        .addColumn("pay_to", "text", (c) => c.notNull())
        .addColumn("transaction", "text")
        .addColumn("response_sha256", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("error_reason", "text")
        .addColumn("payment_payload", "text")
        .addColumn("requirements", "text")
        .addColumn("reconciled_at", "text")
        .execute();
      await db.schema.createIndex("ledger_state_idx").on("ledger").columns(["state", "created_at"]).execute();

      await db.schema
        .createTable("nonce_claims")
        .addColumn("nonce_key", "text", (c) => c.primaryKey())
        .addColumn("claimed_at", "text", (c) => c.notNull())
        .addColumn("sku", "text", (c) => c.notNull())
        .execute();

      await withAutoId(db, db.schema.createTable("jobs"))
        .addColumn("queue", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("max_attempts", "integer", (c) => c.notNull())
        .addColumn("run_at", "text", (c) => c.notNull())
        .addColumn("locked_until", "text")
        .addColumn("last_error", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("jobs_queue_key_unique", ["queue", "key"])
        .execute();
      await db.schema.createIndex("jobs_ready_idx").on("jobs").columns(["state", "run_at"]).execute();

      await withAutoId(db, db.schema.createTable("warmer_runs"))
        .addColumn("warmer", "text", (c) => c.notNull())
        .addColumn("started_at", "text", (c) => c.notNull())
        .addColumn("finished_at", "text")
        .addColumn("ok", "integer")
        .addColumn("error", "text")
        .addColumn("counts", "text")
        .execute();
      await db.schema
        .createIndex("warmer_runs_idx")
        .on("warmer_runs")
        .columns(["warmer", "started_at"])
        .execute();

      await db.schema
        .createTable("sample_counters")
        .addColumn("bucket", "text", (c) => c.primaryKey())
        .addColumn("count", "integer", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("local_usdc_balances")
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("atomic", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("local_usdc_balances_pk", ["network", "address"])
        .execute();

      await db.schema
        .createTable("local_usdc_transfers")
        .addColumn("tx_hash", "text", (c) => c.primaryKey())
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("payer", "text", (c) => c.notNull())
        .addColumn("pay_to", "text", (c) => c.notNull())
        .addColumn("amount", "text", (c) => c.notNull())
        .addColumn("nonce", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("local_usdc_transfers_nonce")
        .on("local_usdc_transfers")
        .columns(["network", "payer", "nonce"])
        .execute();

      await withAutoId(db, db.schema.createTable("sales"))
        .addColumn("domain", "text", (c) => c.notNull())
        .addColumn("price_usdc", "text", (c) => c.notNull())
        .addColumn("payer", "text")
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("transaction", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0002_leases": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("leases")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("holder", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0003_upstream_budgets": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("upstream_budgets")
        .addColumn("upstream", "text", (c) => c.primaryKey())
        .addColumn("next_start_ms", "bigint", (c) => c.notNull())
        .execute();
    },
  },
  "0004_ledger_settled_by_chain": {
    async up(db: Kysely<unknown>) {
      // nonce_key finds the row of a payment a buyer presents again; delivered and held_response let a
      // settlement confirmed later still give the buyer the answer; chain_* record the last on-chain check.
      await db.schema.alterTable("ledger").addColumn("nonce_key", "text").execute();
      await db.schema
        .alterTable("ledger")
        .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("ledger").addColumn("held_response", "text").execute();
      await db.schema.alterTable("ledger").addColumn("chain_checked_at", "text").execute();
      await db.schema.alterTable("ledger").addColumn("chain_error", "text").execute();
      await db.schema.createIndex("ledger_nonce_key_idx").on("ledger").column("nonce_key").execute();
    },
  },
  "0005_upstream_throttles": {
    async up(db: Kysely<unknown>) {
      // A pause an upstream imposed (429 Retry-After, SEC's block), and the request log that sliding-window
      // limits (N a minute / hour / day) are counted on, both shared by every node.
      await db.schema.alterTable("upstream_budgets").addColumn("paused_until_ms", "bigint").execute();
      await db.schema.alterTable("upstream_budgets").addColumn("pause_reason", "text").execute();
      await db.schema
        .createTable("upstream_requests")
        .addColumn("budget", "text", (c) => c.notNull())
        .addColumn("start_ms", "bigint", (c) => c.notNull())
        .addColumn("background", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex("upstream_requests_budget_idx")
        .on("upstream_requests")
        .columns(["budget", "start_ms"])
        .execute();
    },
  },
  "0006_ledger_refunds": {
    async up(db: Kysely<unknown>) {
      // A refund the operator made (outside paycall) for a settled payment whose answer never arrived.
      await db.schema
        .createTable("ledger_refunds")
        .addColumn("ledger_id", "integer", (c) => c.primaryKey().references("ledger.id"))
        .addColumn("transaction", "text", (c) => c.notNull())
        .addColumn("amount", "text", (c) => c.notNull())
        .addColumn("note", "text")
        .addColumn("recorded_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("ledger_refunds_recorded_idx")
        .on("ledger_refunds")
        .column("recorded_at")
        .execute();
    },
  },
  "0007_daily_counters": {
    async up(db: Kysely<unknown>) {
      // 402 challenges, paid calls and free samples per product and UTC day, added to by every node.
      await db.schema
        .createTable("daily_counts")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("sku", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("count", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("daily_counts_pk", ["day", "sku", "kind"])
        .execute();
    },
  },
  "0008_rate_limits": {
    async up(db: Kysely<unknown>) {
      // Unpaid requests per client and minute, added to by every node about once a second (src/abuse/).
      await db.schema
        .createTable("rate_limits")
        .addColumn("bucket", "text", (c) => c.notNull())
        .addColumn("window_start", "bigint", (c) => c.notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("rate_limits_pk", ["bucket", "window_start"])
        .execute();
      await db.schema
        .createIndex("rate_limits_window_idx")
        .on("rate_limits")
        .column("window_start")
        .execute();
    },
  },
  "0009_paid_answers": {
    async up(db: Kysely<unknown>) {
      // Paid answers kept, encrypted, for a buyer's retry with the same payment identifier (extension
      // payment-identifier): one per payment id and payer, purged once expires_at has passed.
      await db.schema
        .createTable("paid_answers")
        .addColumn("payment_id", "text", (c) => c.notNull())
        .addColumn("payer", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("nonce_key", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("sealed_answer", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("paid_answers_pk", ["payment_id", "payer"])
        .execute();
      await db.schema
        .createIndex("paid_answers_expires_idx")
        .on("paid_answers")
        .column("expires_at")
        .execute();
    },
  },
  "0010_ledger_bigint_ids": {
    async up(db: Kysely<unknown>) {
      // Every claimed payment opens a ledger row before verify, and a refused one gives it back, so ids are
      // used up by payments that never settle too: PostgreSQL's serial (int4) would run out after 2.1 billion.
      // SQLite's integer key is 64-bit already. Rewrites the table once, under the migration lock.
      if (!isPostgres(db)) return;
      await sql`alter table ledger alter column id type bigint`.execute(db);
      await sql`alter sequence ledger_id_seq as bigint`.execute(db);
    },
  },
  "0011_job_lanes": {
    async up(db: Kysely<unknown>) {
      // Each job waits in a lane with worker slots of its own (src/jobs/lanes.ts); queued jobs of family queues
      // start in the fetch lane and take their declared lane when next enqueued.
      await db.schema
        .alterTable("jobs")
        .addColumn("lane", "text", (c) => c.notNull().defaultTo("fetch"))
        .execute();
      await db.schema.alterTable("jobs").addColumn("lease_id", "text").execute();
      await sql`update jobs set lane = 'warm' where queue = 'warmer'`.execute(db);
      await db.schema
        .createIndex("jobs_lane_ready_idx")
        .on("jobs")
        .columns(["lane", "state", "run_at"])
        .execute();
    },
  },
  "0012_upstream_slots": {
    async up(db: Kysely<unknown>) {
      // Each upstream's maxConcurrent, held for the whole cluster (src/store/upstream-slots.ts).
      await db.schema
        .createTable("upstream_slots")
        .addColumn("upstream", "text", (c) => c.notNull())
        .addColumn("slot", "integer", (c) => c.notNull())
        .addColumn("holder", "text")
        .addColumn("expires_ms", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("upstream_slots_pk", ["upstream", "slot"])
        .execute();
    },
  },
  "0013_facilitator_status": {
    async up(db: Kysely<unknown>) {
      // Each facilitator's last /supported answer (a node restarted while its facilitators are down still
      // offers what they settle) and its health as a serving node last reported it, for `npm run stats`.
      await db.schema
        .createTable("facilitator_status")
        .addColumn("facilitator", "text", (c) => c.primaryKey())
        .addColumn("supported", "text")
        .addColumn("read_at", "text")
        .addColumn("status", "text")
        .addColumn("reported_at", "text")
        .execute();
    },
  },
  "0014_local_batch_contract": {
    async up(db: Kysely<unknown>) {
      // The local facilitator's pretend x402 batch-settlement contract: its channels, what each receiver has
      // claimed and settled, and its transactions (amounts are atomic USDC as decimal text, like the ledger's).
      await db.schema
        .createTable("local_batch_channels")
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("channel_id", "text", (c) => c.notNull())
        .addColumn("payer", "text", (c) => c.notNull())
        .addColumn("receiver", "text", (c) => c.notNull())
        .addColumn("token", "text", (c) => c.notNull())
        .addColumn("balance", "text", (c) => c.notNull())
        .addColumn("total_claimed", "text", (c) => c.notNull())
        .addColumn("refund_nonce", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("local_batch_channels_pk", ["network", "channel_id"])
        .execute();
      await db.schema
        .createTable("local_batch_receivers")
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("receiver", "text", (c) => c.notNull())
        .addColumn("token", "text", (c) => c.notNull())
        .addColumn("total_claimed", "text", (c) => c.notNull())
        .addColumn("total_settled", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("local_batch_receivers_pk", ["network", "receiver", "token"])
        .execute();
      await db.schema
        .createTable("local_batch_transactions")
        .addColumn("tx_hash", "text", (c) => c.primaryKey())
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("calls", "text", (c) => c.notNull())
        .addColumn("settled_receiver", "text")
        .addColumn("settled_token", "text")
        .addColumn("settled_amount", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0015_batch_channels": {
    async up(db: Kysely<unknown>) {
      // The seller's side of each batch-settlement channel (src/store/channels.ts): what its vouchers have
      // charged, the latest voucher, the on-chain state last seen, and the reservation of a voucher in flight.
      // Amounts are uint256 decimal strings, as the scheme writes them.
      await db.schema
        .createTable("batch_channels")
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("channel_id", "text", (c) => c.notNull())
        .addColumn("payer", "text", (c) => c.notNull())
        .addColumn("channel_config", "text", (c) => c.notNull())
        .addColumn("charged_cumulative", "text", (c) => c.notNull())
        .addColumn("signed_max_claimable", "text", (c) => c.notNull())
        .addColumn("signature", "text", (c) => c.notNull())
        .addColumn("balance", "text", (c) => c.notNull())
        .addColumn("total_claimed", "text", (c) => c.notNull())
        .addColumn("withdraw_requested_at", "bigint", (c) => c.notNull())
        .addColumn("refund_nonce", "bigint", (c) => c.notNull())
        .addColumn("onchain_synced_at", "bigint")
        .addColumn("last_request_at", "bigint", (c) => c.notNull())
        .addColumn("pending_id", "text")
        .addColumn("pending_max_claimable", "text")
        .addColumn("pending_expires_at", "bigint")
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("batch_channels_pk", ["network", "channel_id"])
        .execute();
      // A voucher call's sale names its channel and the cumulative total its voucher signed.
      await db.schema.alterTable("ledger").addColumn("batch_channel", "text").execute();
      await db.schema.alterTable("ledger").addColumn("batch_cumulative", "text").execute();
      // The channel manager's on-chain operations: each claim (many vouchers), settlement and refund.
      await withAutoId(db, db.schema.createTable("batch_operations"))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("network", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("channel_id", "text")
        .addColumn("vouchers", "integer", (c) => c.notNull())
        .addColumn("amount", "text", (c) => c.notNull())
        .addColumn("transaction", "text")
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("error_reason", "text")
        .execute();
      await db.schema
        .createIndex("batch_operations_kind_idx")
        .on("batch_operations")
        .columns(["kind", "created_at"])
        .execute();
    },
  },
  "0016_batch_operation_checks": {
    async up(db: Kysely<unknown>) {
      // A claim's channels and the totals it asked (JSON), and the chain checks of an operation whose answer
      // was lost: when last asked, and why the chain could not be (the alarm).
      await db.schema.alterTable("batch_operations").addColumn("claims", "text").execute();
      await db.schema.alterTable("batch_operations").addColumn("chain_checked_at", "text").execute();
      await db.schema.alterTable("batch_operations").addColumn("chain_error", "text").execute();
    },
  },
  "0017_local_batch_withdrawals": {
    async up(db: Kysely<unknown>) {
      // The pretend batch-settlement contract's pending timed withdrawal of a channel (amount and when it was
      // asked, unix seconds), or null.
      await db.schema.alterTable("local_batch_channels").addColumn("withdraw_amount", "text").execute();
      await db.schema
        .alterTable("local_batch_channels")
        .addColumn("withdraw_initiated_at", "bigint")
        .execute();
    },
  },
  "0018_batch_written_off": {
    async up(db: Kysely<unknown>) {
      // A channel's charges written off because the chain no longer held them when they came to be claimed.
      await db.schema
        .alterTable("batch_channels")
        .addColumn("written_off_to", "text", (c) => c.notNull().defaultTo("0"))
        .execute();
    },
  },
};

const provider = (familyMigrations: Record<string, Migration>): MigrationProvider => ({
  getMigrations: async () => ({ ...migrations, ...familyMigrations }),
});

/** Runs the core's migrations and the families' (their names sort after the core's). */
export async function migrateToLatest(
  db: Kysely<unknown>,
  familyMigrations: Record<string, Migration> = {},
  schema?: string,
): Promise<void> {
  for (const name of Object.keys(familyMigrations)) {
    if (name in migrations) throw new Error(`family migration ${name} reuses a core migration name`);
  }
  const { error, results } = await new Migrator({
    db,
    provider: provider(familyMigrations),
    allowUnorderedMigrations: true,
    // Named, or Kysely finds another schema's bookkeeping tables and takes them for its own.
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ""} failed: ${String(error)}`, { cause: error });
  }
}
