// The store: one database and the repositories every part of paycall reaches it through.
import path from "node:path";
import { Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { Config } from "../config.ts";
import { BatchOperationRepository } from "./batch-operations.ts";
import { CacheRepository } from "./cache.ts";
import { ChannelRepository } from "./channels.ts";
import { DailyCounterRepository } from "./daily-counters.ts";
import { FacilitatorStatusRepository } from "./facilitator-status.ts";
import {
  queryProbe,
  StoreHealth,
  sqliteSpaceProbe,
  watchedDialect,
  watchedRunner,
  watchedSync,
} from "./health.ts";
import { JobRepository } from "./jobs.ts";
import { LeaseRepository } from "./leases.ts";
import { LedgerRepository } from "./ledger.ts";
import { LocalUsdcRepository } from "./local-usdc.ts";
import { migrateToLatest } from "./migrations.ts";
import { NonceClaimRepository } from "./nonce-claims.ts";
import { PaidAnswerRepository } from "./paid-answers.ts";
import { postgresDialect, withMigrationLock } from "./postgres-dialect.ts";
import type { QueryRunner } from "./prepared.ts";
import { ensurePrivateDir, ensurePrivateFile } from "./private-files.ts";
import { RefundRepository } from "./refunds.ts";
import { SaleRepository } from "./sales.ts";
import { SampleCounterRepository } from "./sample-counters.ts";
import type { Database } from "./schema.ts";
import { nodeSqliteDialect, openSqlite, type SyncSqlite } from "./sqlite-dialect.ts";
import { UpstreamBudgetRepository } from "./upstream-budgets.ts";
import { WarmerRunRepository } from "./warmer-runs.ts";

const CATALOG_RACE_CODES = new Set(["3F000", "42P01", "42703", "42704"]);

export type StoreKind = "sqlite" | "postgres";

/** Tables a module's own migrations create, typed by that module: `tables.of<NvdTables>()`. */
export interface OwnTables {
  readonly kind: StoreKind;
  of<Tables>(): Kysely<Tables>;
}

export class Store {
  readonly kind: StoreKind;
  readonly db: Kysely<Database>;
  /** The same database, for the tables a family's migrations create (src/catalog/family-context.ts). */
  readonly tables: OwnTables;
  readonly cache: CacheRepository;
  readonly ledger: LedgerRepository;
  readonly nonces: NonceClaimRepository;
  readonly jobs: JobRepository;
  readonly warmerRuns: WarmerRunRepository;
  readonly samples: SampleCounterRepository;
  readonly localUsdc: LocalUsdcRepository;
  readonly sales: SaleRepository;
  readonly leases: LeaseRepository;
  readonly upstreamBudgets: UpstreamBudgetRepository;
  readonly paidAnswers: PaidAnswerRepository;
  readonly refunds: RefundRepository;
  readonly facilitators: FacilitatorStatusRepository;
  /** The seller's batch-settlement channels (the SDK's ChannelStorage per network). */
  readonly channels: ChannelRepository;
  /** The channel manager's claims, settlements and refunds, and the scheme's figures. */
  readonly batchOperations: BatchOperationRepository;
  /** Buffered in memory; `dailyCounts.close()` writes what is left before the store closes. */
  readonly dailyCounts: DailyCounterRepository;
  /** Whether the store takes writes now (a lost connection, a full disk), and the writes waiting for it. */
  readonly health: StoreHealth;

  /**
   * `sqlite`: the SQLite connection run synchronously, for the paid path's claim (ledger.ts); `postgres`: the
   * pool as a runner of the paid path's compiled statements (postgres-dialect.ts).
   */
  constructor(
    kind: StoreKind,
    db: Kysely<Database>,
    sqlite?: SyncSqlite,
    health = new StoreHealth(),
    postgres?: QueryRunner,
  ) {
    this.kind = kind;
    this.db = db;
    this.tables = { kind, of: <Tables>() => db as unknown as Kysely<Tables> };
    this.health = health;
    this.cache = new CacheRepository(db);
    this.ledger = new LedgerRepository(db, sqlite, postgres);
    this.nonces = new NonceClaimRepository(db);
    this.jobs = new JobRepository(db);
    this.warmerRuns = new WarmerRunRepository(db);
    this.samples = new SampleCounterRepository(db);
    this.localUsdc = new LocalUsdcRepository(db);
    this.sales = new SaleRepository(db);
    this.leases = new LeaseRepository(db);
    this.upstreamBudgets = new UpstreamBudgetRepository(db);
    this.paidAnswers = new PaidAnswerRepository(db);
    this.refunds = new RefundRepository(db);
    this.facilitators = new FacilitatorStatusRepository(db);
    this.channels = new ChannelRepository(db, sqlite);
    this.batchOperations = new BatchOperationRepository(db);
    this.dailyCounts = new DailyCounterRepository(db);
  }

  /** True when the database answers a trivial query within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const query = sql`select 1`.execute(this.db).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.health.close();
    await this.db.destroy();
  }
}

/** Opens the configured store and brings its schema up to date. */
export async function openStore(
  database: Config["database"],
  familyMigrations: Record<string, Migration> = {},
): Promise<Store> {
  const health = new StoreHealth();
  if (database.kind === "postgres") {
    const { dialect, direct } = await postgresDialect(database, (error) => health.observe(error));
    const db = new Kysely<Database>({ dialect: watchedDialect(dialect, health) });
    // Kysely looks for its bookkeeping tables across every schema; a schema or table another client drops
    // at that moment fails the look-up (undefined schema, table, column or object), and looking again succeeds.
    for (let attempt = 1; ; attempt++) {
      try {
        await withMigrationLock(db as unknown as Kysely<unknown>, database.schema, () =>
          migrateToLatest(db as unknown as Kysely<unknown>, familyMigrations, database.schema),
        );
        break;
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        if (attempt < 5 && CATALOG_RACE_CODES.has(cause?.code ?? "")) continue;
        await db.destroy();
        throw error;
      }
    }
    health.probeWith(queryProbe(() => sql`select 1`.execute(db)));
    return new Store("postgres", db, undefined, health, watchedRunner(direct, health));
  }
  if (database.file !== ":memory:") {
    ensurePrivateDir(path.dirname(database.file), false);
    ensurePrivateFile(database.file);
  }
  const sqlite = nodeSqliteDialect(openSqlite(database.file));
  const db = new Kysely<Database>({ dialect: watchedDialect(sqlite.dialect, health) });
  // Kysely takes no migration lock on SQLite: when two processes create a fresh file at once, the
  // loser's migration fails on the tables the winner created; trying again then finds them recorded.
  for (let attempt = 1; ; attempt++) {
    try {
      await migrateToLatest(db as unknown as Kysely<unknown>, familyMigrations);
      break;
    } catch (error) {
      if (attempt >= 5 || !/already exists|locked|busy/i.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
    }
  }
  const space = database.file === ":memory:" ? async () => {} : sqliteSpaceProbe(database.file);
  const answers = queryProbe(() => sql`select 1`.execute(db));
  health.probeWith(async () => {
    await space();
    await answers();
  });
  return new Store("sqlite", db, watchedSync(sqlite.sync, health), health);
}
