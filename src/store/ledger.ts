// The ledger: one row per settlement attempt that reached the facilitator.
import { type Kysely, type QueryCreator, type Selectable, sql } from "kysely";
import { jsonOnce } from "../json-once.ts";
import { type UnreachableChecks, unreachableChecks } from "./chain-alarm.ts";
import { NonceClaimRepository } from "./nonce-claims.ts";
import { Prepared, type QueryRunner } from "./prepared.ts";
import { Repository } from "./repository.ts";
import type { Database, LedgerState, LedgerTable } from "./schema.ts";
import type { SyncSqlite } from "./sqlite-dialect.ts";

export interface LedgerEntry {
  sku: string;
  requestHash: string;
  network: string;
  payer: string | null;
  amount: string;
  asset: string;
  payTo: string;
  transaction: string | null;
  responseSha256: string;
  state: LedgerState;
  errorReason?: string | null;
  /** Kept only while the outcome is unknown, so the settlement can be reconciled. */
  paymentPayload?: unknown;
  requirements?: unknown;
  /** The payment's identity, to find the row when the buyer presents the same payment again. */
  nonceKey?: string;
  /** A batch-settlement voucher's channel and the cumulative total it signed. */
  batchChannel?: string | null;
  batchCumulative?: string | null;
}

export interface ResolveOptions {
  payer?: string | null;
  now?: Date;
  /** The answer was handed to the buyer (drops any held answer). */
  delivered?: boolean;
  /** The answer to hold for the buyer's retry while the outcome is uncertain. */
  heldResponse?: string;
  /** The digest of the answer settled for (a row opened at claim time has none yet). */
  responseSha256?: string;
  /** The amount settled, when it differs from the one the row was opened with (upto: what the call used). */
  amount?: string;
}

/** A settled payment whose answer never reached the buyer. */
export interface RefundDue {
  id: number;
  createdAt: string;
  sku: string;
  network: string;
  payer: string | null;
  amount: string;
  asset: string;
  transaction: string | null;
  /** When the settlement was confirmed (the row's creation when it never needed confirming). */
  settledAt: string;
}

/** Uncertain rows whose last on-chain check could not reach the RPC, and since when. */
export interface ChainAlarm extends UnreachableChecks {
  since: string | null;
}

const DAY_MS = 24 * 3600_000;

/** A settled row written before this and still undelivered is owed a refund. */
export function refundDueBefore(now: Date): string {
  return new Date(now.getTime() - DAY_MS).toISOString();
}

export type LedgerRow = Selectable<LedgerTable>;

/** The columns of a new row: an outcome set later starts empty. */
function ledgerValues(entry: LedgerEntry, now: Date) {
  return {
    created_at: now.toISOString(),
    sku: entry.sku,
    request_hash: entry.requestHash,
    network: entry.network,
    payer: entry.payer,
    amount: entry.amount,
    asset: entry.asset,
    pay_to: entry.payTo,
    transaction: entry.transaction,
    response_sha256: entry.responseSha256,
    state: entry.state,
    error_reason: entry.errorReason ?? null,
    payment_payload: entry.paymentPayload === undefined ? null : jsonOnce(entry.paymentPayload),
    requirements: entry.requirements === undefined ? null : jsonOnce(entry.requirements),
    reconciled_at: null,
    nonce_key: entry.nonceKey ?? null,
    delivered: entry.state === "settled" ? 1 : 0,
    held_response: null,
    chain_checked_at: null,
    chain_error: null,
    batch_channel: entry.batchChannel ?? null,
    batch_cumulative: entry.batchCumulative ?? null,
  };
}

type LedgerValues = ReturnType<typeof ledgerValues>;

const LEDGER_COLUMNS = Object.keys(
  ledgerValues(
    {
      sku: "",
      requestHash: "",
      network: "",
      payer: null,
      amount: "",
      asset: "",
      payTo: "",
      transaction: null,
      responseSha256: "",
      state: "pending",
    },
    new Date(0),
  ),
) as (keyof LedgerValues)[];

/** Every column bound by name, so a prepared statement binds each one (the placeholders have no keys). */
function bindColumns(v: LedgerValues): LedgerValues {
  return Object.fromEntries(LEDGER_COLUMNS.map((column) => [column, v[column]])) as LedgerValues;
}

/** The outcome of a row, in one statement whatever it sets (flags choose which columns keep their value). */
interface OutcomeValues extends Record<string, unknown> {
  id: number;
  state: LedgerState;
  transaction: string | null;
  error_reason: string | null;
  reconciled_at: string;
  /** null keeps the row's value. */
  payer: string | null;
  response_sha256: string | null;
  /** null keeps the row's value. */
  amount: string | null;
  /** 1 keeps the signed payload (the outcome is unknown), 0 drops it. */
  keep_payload: number;
  /** 1 sets held_response (to a value or null), 0 keeps it. */
  set_held: number;
  held_response: string | null;
  delivered: number;
}

export class LedgerRepository extends Repository {
  private readonly nonces = new NonceClaimRepository(this.db);
  private readonly sqlite: SyncSqlite | undefined;

  /** PostgreSQL: where the claim and the outcome run (the pool itself, postgres-dialect.ts). */
  private readonly direct: QueryRunner;

  constructor(db: Kysely<Database>, sqlite?: SyncSqlite, postgres?: QueryRunner) {
    super(db);
    this.sqlite = sqlite;
    this.direct = postgres ?? db;
  }

  private readonly insert = new Prepared((v: LedgerValues) =>
    this.db.insertInto("ledger").values(bindColumns(v)).returning("id"),
  );

  /** The claim and the pending row in one statement: a row only when the claim was taken (PostgreSQL). */
  private readonly claimAndInsert = new Prepared((v: LedgerValues) =>
    this.db
      .with("claim", (db) =>
        db
          .insertInto("nonce_claims")
          .values({ nonce_key: v.nonce_key as string, sku: v.sku, claimed_at: v.created_at })
          .onConflict((oc) => oc.column("nonce_key").doNothing())
          .returning("nonce_key"),
      )
      .insertInto("ledger")
      .columns(LEDGER_COLUMNS)
      .expression((eb) => eb.selectFrom("claim").select(LEDGER_COLUMNS.map((c) => eb.val(v[c]).as(c))))
      .returning("id"),
  );

  private readonly outcome = new Prepared((v: OutcomeValues) =>
    this.db
      .updateTable("ledger")
      .set({
        state: v.state,
        transaction: v.transaction,
        error_reason: v.error_reason,
        reconciled_at: v.reconciled_at,
        payer: sql<string | null>`coalesce(${v.payer}, payer)`,
        response_sha256: sql<string>`coalesce(${v.response_sha256}, response_sha256)`,
        amount: sql<string>`coalesce(${v.amount}, amount)`,
        payment_payload: sql<string | null>`case when ${v.keep_payload} = 1 then payment_payload end`,
        held_response: sql<
          string | null
        >`case when ${v.set_held} = 1 then ${v.held_response} else held_response end`,
        delivered: sql<number>`case when ${v.delivered} = 1 then 1 else delivered end`,
      })
      .where("id", "=", v.id),
  );

  async record(entry: LedgerEntry, now = new Date(), runner: QueryRunner = this.db): Promise<number> {
    const { rows } = await this.insert.run(runner, ledgerValues(entry, now));
    return Number(rows[0]?.id);
  }

  /**
   * Claims a payment and opens its pending row, in one statement on PostgreSQL (one transaction on SQLite):
   * the row's id, or undefined when the payment was already claimed. The row exists before the handler runs and
   * before settling, so a process that stops anywhere between claim and outcome leaves a row the sweep decides.
   */
  async claim(entry: LedgerEntry & { nonceKey: string }, now = new Date()): Promise<number | undefined> {
    const pending = { ...entry, state: "pending" as const };
    const sqlite = this.sqlite;
    if (sqlite && !sqlite.inTransaction) {
      // Without Kysely's connection and transaction steps (promises at each), and without an await
      // inside the transaction, so no other query can run in it.
      return sqlite.transaction(() => {
        if (sqlite.changes(this.nonces.claimStatement(entry.nonceKey, entry.sku, now)) !== 1)
          return undefined;
        return Number(sqlite.rows(this.insert.with(ledgerValues(pending, now)))[0]?.id);
      });
    }
    if (!this.postgres) {
      return this.db.transaction().execute(async (trx) => {
        if (!(await this.nonces.claim(entry.nonceKey, entry.sku, now, trx))) return undefined;
        return this.record(pending, now, trx);
      });
    }
    const { rows } = await this.claimAndInsert.run(this.direct, ledgerValues(pending, now));
    return rows[0] === undefined ? undefined : Number(rows[0].id);
  }

  /**
   * Frees a claimed payment that was never settled: its pending row and its claim, so it can be paid again.
   * A payment with a decided row keeps its claim.
   */
  async release(nonceKey: string): Promise<void> {
    const freeClaim = (db: QueryCreator<Database>) =>
      db
        .deleteFrom("nonce_claims")
        .where("nonce_key", "=", nonceKey)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("ledger")
                .select("ledger.id")
                .where("ledger.nonce_key", "=", nonceKey)
                .where("ledger.state", "!=", "pending"),
            ),
          ),
        );
    const deletePending = (db: QueryCreator<Database>) =>
      db.deleteFrom("ledger").where("nonce_key", "=", nonceKey).where("state", "=", "pending");
    if (!this.postgres) {
      await this.db.transaction().execute(async (trx) => {
        await deletePending(trx).execute();
        await freeClaim(trx).execute();
      });
      return;
    }
    // One statement: the CTE adds a table name the main delete does not use.
    await freeClaim(this.db.with("pending", deletePending) as unknown as QueryCreator<Database>).execute();
  }

  /**
   * Sets the outcome of a row. The signed payload is kept while the outcome is unknown (it is what a
   * reconciliation re-submits) and dropped once it is known.
   */
  async resolve(
    id: number,
    state: LedgerState,
    transaction: string | null,
    errorReason: string | null,
    options: ResolveOptions = {},
  ) {
    const delivered = options.delivered === true;
    // Delivered drops any held answer; else a new one is held; a failed outcome holds none.
    const setHeld = delivered || options.heldResponse !== undefined || state === "failed";
    const values: OutcomeValues = {
      id,
      state,
      transaction,
      error_reason: errorReason,
      reconciled_at: (options.now ?? new Date()).toISOString(),
      payer: options.payer || null,
      response_sha256: options.responseSha256 ?? null,
      amount: options.amount ?? null,
      keep_payload: state === "unknown" ? 1 : 0,
      set_held: setHeld ? 1 : 0,
      held_response: delivered ? null : (options.heldResponse ?? null),
      delivered: delivered ? 1 : 0,
    };
    // On SQLite, one statement run at once, as the claim is (no Kysely connection step, no promise per step).
    if (this.sqlite && !this.sqlite.inTransaction) this.sqlite.changes(this.outcome.with(values));
    else await this.outcome.run(this.direct, values);
  }

  /** The latest row of a payment, by its identity (payment-identity.ts). */
  async findByNonceKey(nonceKey: string): Promise<LedgerRow | undefined> {
    return this.db
      .selectFrom("ledger")
      .selectAll()
      .where("nonce_key", "=", nonceKey)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Lets a payment decided not charged be presented again as a new one: its row keeps its outcome under a key
   * no payment has, and the claim is freed. For a batch-settlement voucher, whose cumulative total the buyer
   * must be able to pay again once a call at that total was not charged.
   */
  async voidNonce(id: number, nonceKey: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("ledger")
        .set({ nonce_key: `${nonceKey}#void-${id}` })
        .where("id", "=", id)
        .where("state", "=", "failed")
        .execute();
      await trx.deleteFrom("nonce_claims").where("nonce_key", "=", nonceKey).execute();
    });
  }

  async markDelivered(id: number): Promise<void> {
    await this.db
      .updateTable("ledger")
      .set({ delivered: 1, held_response: null })
      .where("id", "=", id)
      .execute();
  }

  /** Records an on-chain check: `error` when the RPC could not be asked (the alarm), null when it answered. */
  async recordChainCheck(id: number, error: string | null, now = new Date()): Promise<void> {
    await this.db
      .updateTable("ledger")
      .set({ chain_checked_at: now.toISOString(), chain_error: error })
      .where("id", "=", id)
      .execute();
  }

  /**
   * Settled payments whose answer was not delivered within a day and that no recorded refund (refunds.ts)
   * covers yet: the buyer is owed a refund.
   */
  async refundsDue(now = new Date(), limit = 1000): Promise<RefundDue[]> {
    const rows = await this.db
      .selectFrom("ledger")
      .select([
        "id",
        "created_at",
        "sku",
        "network",
        "payer",
        "amount",
        "asset",
        "transaction",
        "reconciled_at",
      ])
      .where("state", "=", "settled")
      .where("delivered", "=", 0)
      .where("created_at", "<", refundDueBefore(now))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("ledger_refunds")
              .select("ledger_id")
              .whereRef("ledger_refunds.ledger_id", "=", "ledger.id"),
          ),
        ),
      )
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      createdAt: r.created_at,
      sku: r.sku,
      network: r.network,
      payer: r.payer,
      amount: r.amount,
      asset: r.asset,
      transaction: r.transaction,
      settledAt: r.reconciled_at ?? r.created_at,
    }));
  }

  /** Uncertain settlements the chain could not be asked about: an operator must look (never a guess). */
  async chainAlarm(): Promise<ChainAlarm> {
    const rows = await this.db
      .selectFrom("ledger")
      .select(["network", "chain_error", "chain_checked_at", "created_at"])
      .where("state", "in", ["unknown", "pending"])
      .where("chain_error", "is not", null)
      .orderBy("chain_checked_at", "desc")
      .limit(1000)
      .execute();
    return {
      ...unreachableChecks(rows),
      since: rows.reduce<string | null>(
        (min, r) => (min === null || r.created_at < min ? r.created_at : min),
        null,
      ),
    };
  }

  /** Ids of rows still in `state` that were written before `before` (left behind by a stopped process). */
  async idsInStateBefore(state: LedgerState, before: Date, limit = 100): Promise<number[]> {
    const rows = await this.db
      .selectFrom("ledger")
      .select("id")
      .where("state", "=", state)
      .where("created_at", "<", before.toISOString())
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  async get(id: number): Promise<LedgerRow | undefined> {
    return this.db.selectFrom("ledger").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async list(options: { state?: LedgerState; limit?: number } = {}): Promise<LedgerRow[]> {
    let query = this.db
      .selectFrom("ledger")
      .selectAll()
      .orderBy("id", "desc")
      .limit(options.limit ?? 100);
    if (options.state) query = query.where("state", "=", options.state);
    return query.execute();
  }

  async totals(): Promise<Array<{ state: string; count: number; atomic: string }>> {
    const rows = await this.db.selectFrom("ledger").select(["state", "amount"]).execute();
    const totals = new Map<string, { count: number; atomic: bigint }>();
    for (const row of rows) {
      const t = totals.get(row.state) ?? { count: 0, atomic: 0n };
      t.count += 1;
      t.atomic += BigInt(row.amount);
      totals.set(row.state, t);
    }
    return [...totals].map(([state, t]) => ({ state, count: t.count, atomic: t.atomic.toString() }));
  }
}
