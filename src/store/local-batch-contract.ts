// The state of the local facilitator's pretend x402 batch-settlement contract (src/x402/facilitator/
// batch-contract.ts says what it does): its channels, what each receiver claimed and settled, and the
// transactions that changed them. The USDC it holds sits on the local USDC ledger under the contract's address.
import type { Kysely, Selectable } from "kysely";
import { LocalUsdcRepository, type TransferRequest } from "./local-usdc.ts";
import { Repository } from "./repository.ts";
import type { Database, LocalBatchChannelTable } from "./schema.ts";

export interface BatchChannel {
  payer: string;
  receiver: string;
  token: string;
  /** Deposited, less what was refunded (claimed amounts stay in the balance until settled). */
  balance: bigint;
  totalClaimed: bigint;
  refundNonce: bigint;
  /** The payer's timed withdrawal, asked and not finalized yet (initiatedAt: unix seconds). */
  withdrawal?: { amount: bigint; initiatedAt: bigint } | undefined;
}

export interface BatchReceiver {
  totalClaimed: bigint;
  totalSettled: bigint;
}

export interface BatchTransaction {
  calls: string[];
  settled?: { receiver: string; token: string; amount: bigint };
}

const key = (value: string): string => value.toLowerCase();

function channelOf(row: Selectable<LocalBatchChannelTable>): BatchChannel {
  return {
    payer: row.payer,
    receiver: row.receiver,
    token: row.token,
    balance: BigInt(row.balance),
    totalClaimed: BigInt(row.total_claimed),
    refundNonce: BigInt(row.refund_nonce),
    withdrawal:
      row.withdraw_amount !== null && row.withdraw_initiated_at !== null
        ? { amount: BigInt(row.withdraw_amount), initiatedAt: BigInt(row.withdraw_initiated_at) }
        : undefined,
  };
}

export class LocalBatchContractRepository extends Repository {
  private readonly usdc: LocalUsdcRepository;
  constructor(db: Kysely<Database>, usdc = new LocalUsdcRepository(db)) {
    super(db);
    this.usdc = usdc;
  }

  /**
   * Runs one contract transaction: in the local USDC ledger's locked transaction, so it sees and moves
   * balances as one step, and a revert (a throw) undoes every write. Also how a call is simulated: the work
   * runs, then throws to roll back.
   */
  async transact<T>(work: (contract: LocalBatchContractRepository) => Promise<T>): Promise<T> {
    return this.usdc.locked((usdc, trx) => work(new LocalBatchContractRepository(trx, usdc)));
  }

  async channel(network: string, channelId: string): Promise<BatchChannel | undefined> {
    const row = await this.db
      .selectFrom("local_batch_channels")
      .selectAll()
      .where("network", "=", network)
      .where("channel_id", "=", key(channelId))
      .executeTakeFirst();
    return row ? channelOf(row) : undefined;
  }

  async putChannel(network: string, channelId: string, channel: BatchChannel): Promise<void> {
    const values = {
      network,
      channel_id: key(channelId),
      payer: key(channel.payer),
      receiver: key(channel.receiver),
      token: key(channel.token),
      balance: channel.balance.toString(),
      total_claimed: channel.totalClaimed.toString(),
      refund_nonce: channel.refundNonce.toString(),
      withdraw_amount: channel.withdrawal ? channel.withdrawal.amount.toString() : null,
      withdraw_initiated_at: channel.withdrawal ? Number(channel.withdrawal.initiatedAt) : null,
    };
    await this.db
      .insertInto("local_batch_channels")
      .values(values)
      .onConflict((oc) =>
        oc.columns(["network", "channel_id"]).doUpdateSet({
          balance: values.balance,
          total_claimed: values.total_claimed,
          refund_nonce: values.refund_nonce,
          withdraw_amount: values.withdraw_amount,
          withdraw_initiated_at: values.withdraw_initiated_at,
        }),
      )
      .execute();
  }

  async receiver(network: string, receiver: string, token: string): Promise<BatchReceiver> {
    const row = await this.db
      .selectFrom("local_batch_receivers")
      .select(["total_claimed", "total_settled"])
      .where("network", "=", network)
      .where("receiver", "=", key(receiver))
      .where("token", "=", key(token))
      .executeTakeFirst();
    return {
      totalClaimed: BigInt(row?.total_claimed ?? 0),
      totalSettled: BigInt(row?.total_settled ?? 0),
    };
  }

  async putReceiver(network: string, receiver: string, token: string, totals: BatchReceiver): Promise<void> {
    const values = {
      network,
      receiver: key(receiver),
      token: key(token),
      total_claimed: totals.totalClaimed.toString(),
      total_settled: totals.totalSettled.toString(),
    };
    await this.db
      .insertInto("local_batch_receivers")
      .values(values)
      .onConflict((oc) =>
        oc.columns(["network", "receiver", "token"]).doUpdateSet({
          total_claimed: values.total_claimed,
          total_settled: values.total_settled,
        }),
      )
      .execute();
  }

  usdcBalance(network: string, address: string): Promise<bigint> {
    return this.usdc.balance(network, address);
  }

  usdcNonceUsed(network: string, payer: string, nonce: string): Promise<boolean> {
    return this.usdc.nonceUsed(network, payer, nonce);
  }

  /** Inside `transact`: a USDC transfer on the local ledger (refused, not recorded, when it cannot move). */
  async moveUsdc(request: TransferRequest): Promise<boolean> {
    if (await this.usdc.nonceUsed(request.network, request.payer, request.nonce)) return false;
    if ((await this.usdc.balance(request.network, request.payer)) < request.amount) return false;
    return (await this.usdc.record(request)) === "success";
  }

  async recordTransaction(network: string, txHash: string, tx: BatchTransaction, now = new Date()) {
    await this.db
      .insertInto("local_batch_transactions")
      .values({
        tx_hash: txHash,
        network,
        calls: tx.calls.join(","),
        settled_receiver: tx.settled ? key(tx.settled.receiver) : null,
        settled_token: tx.settled ? key(tx.settled.token) : null,
        settled_amount: tx.settled ? tx.settled.amount.toString() : null,
        created_at: now.toISOString(),
      })
      .execute();
  }

  async transaction(network: string, txHash: string): Promise<BatchTransaction | undefined> {
    const row = await this.db
      .selectFrom("local_batch_transactions")
      .selectAll()
      .where("network", "=", network)
      .where("tx_hash", "=", txHash.toLowerCase())
      .executeTakeFirst();
    if (!row) return undefined;
    const settled =
      row.settled_receiver && row.settled_token && row.settled_amount !== null
        ? { receiver: row.settled_receiver, token: row.settled_token, amount: BigInt(row.settled_amount) }
        : undefined;
    return { calls: row.calls.split(","), ...(settled ? { settled } : {}) };
  }
}
