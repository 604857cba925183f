import { type Kysely, type Selectable, sql } from "kysely";
import { Repository } from "./repository.ts";
import type { Database, LocalUsdcTransferTable } from "./schema.ts";

const LOCAL_USDC_LOCK_KEY = 402_1_0002;

export interface TransferRequest {
  network: string;
  payer: string;
  payTo: string;
  amount: bigint;
  nonce: string;
  txHash: string;
}

/** EVM addresses are case-insensitive (kept in lower case); Solana's base58 addresses are not. */
function ledgerKey(value: string): string {
  return value.startsWith("0x") ? value.toLowerCase() : value;
}

export class LocalUsdcRepository extends Repository {
  async balance(network: string, address: string): Promise<bigint> {
    const row = await this.db
      .selectFrom("local_usdc_balances")
      .select("atomic")
      .where("network", "=", network)
      .where("address", "=", ledgerKey(address))
      .executeTakeFirst();
    return row ? BigInt(row.atomic) : 0n;
  }

  async credit(network: string, address: string, amount: bigint): Promise<bigint> {
    return this.locked(async (repo) => {
      const next = (await repo.balance(network, address)) + amount;
      await repo.setBalance(network, address, next);
      return next;
    });
  }

  async nonceUsed(network: string, payer: string, nonce: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("local_usdc_transfers")
      .select("tx_hash")
      .where("network", "=", network)
      .where("payer", "=", ledgerKey(payer))
      .where("nonce", "=", ledgerKey(nonce))
      .where("status", "=", "success")
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Moves the amount in one transaction; a used nonce or a short balance records a reverted transfer. */
  async transfer(request: TransferRequest, now = new Date()): Promise<"success" | "reverted"> {
    return this.locked((repo) => repo.record(request, now));
  }

  /**
   * Runs `work` in one transaction holding the ledger's lock, with a repository bound to that transaction:
   * what it reads stays true until it commits, and a throw undoes every write.
   */
  async locked<T>(work: (repo: LocalUsdcRepository, trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const repo = new LocalUsdcRepository(trx);
      await repo.serialise();
      return work(repo, trx);
    });
  }

  /** Inside `locked`: moves the amount unless the nonce is used or the balance short, and records the transfer. */
  async record(request: TransferRequest, now = new Date()): Promise<"success" | "reverted"> {
    const payerBalance = await this.balance(request.network, request.payer);
    const ok =
      !(await this.nonceUsed(request.network, request.payer, request.nonce)) &&
      payerBalance >= request.amount;
    if (ok) {
      await this.setBalance(request.network, request.payer, payerBalance - request.amount);
      await this.setBalance(
        request.network,
        request.payTo,
        (await this.balance(request.network, request.payTo)) + request.amount,
      );
    }
    await this.db
      .insertInto("local_usdc_transfers")
      .values({
        tx_hash: request.txHash,
        network: request.network,
        payer: ledgerKey(request.payer),
        pay_to: ledgerKey(request.payTo),
        amount: request.amount.toString(),
        nonce: ledgerKey(request.nonce),
        status: ok ? "success" : "reverted",
        created_at: now.toISOString(),
      })
      .execute();
    return ok ? "success" : "reverted";
  }

  async transferStatus(txHash: string): Promise<"success" | "reverted" | undefined> {
    const row = await this.db
      .selectFrom("local_usdc_transfers")
      .select("status")
      .where("tx_hash", "=", txHash)
      .executeTakeFirst();
    return row?.status;
  }

  /** One recorded transfer of the network, or undefined. */
  async transferRow(
    network: string,
    txHash: string,
  ): Promise<Selectable<LocalUsdcTransferTable> | undefined> {
    return this.db
      .selectFrom("local_usdc_transfers")
      .selectAll()
      .where("network", "=", network)
      .where("tx_hash", "=", txHash)
      .executeTakeFirst();
  }

  /** The network's transfers an address paid or received, newest first. */
  async transfersOf(
    network: string,
    address: string,
    limit: number,
  ): Promise<Selectable<LocalUsdcTransferTable>[]> {
    const key = ledgerKey(address);
    return this.db
      .selectFrom("local_usdc_transfers")
      .selectAll()
      .where("network", "=", network)
      .where((eb) => eb.or([eb("payer", "=", key), eb("pay_to", "=", key)]))
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute();
  }

  /**
   * Inside a transaction: one balance change at a time. SQLite writes are serial already; PostgreSQL's
   * read-committed transactions would otherwise both read the old balance and overspend.
   */
  private async serialise(): Promise<void> {
    if (this.postgres) await sql`select pg_advisory_xact_lock(${LOCAL_USDC_LOCK_KEY})`.execute(this.db);
  }

  private async setBalance(network: string, address: string, atomic: bigint): Promise<void> {
    const values = { network, address: ledgerKey(address), atomic: atomic.toString() };
    await this.db
      .insertInto("local_usdc_balances")
      .values(values)
      .onConflict((oc) => oc.columns(["network", "address"]).doUpdateSet({ atomic: values.atomic }))
      .execute();
  }
}
