// The seller's batch-settlement channels (x402 `batch-settlement`), kept in the store: the SDK's server
// ChannelStorage for one network. `update` reads a channel, hands it to the scheme's callback and writes what
// the callback returns as one step no other node or request can interleave with: one immediate transaction on
// SQLite (the callback is synchronous, so nothing else runs in it), a row lock on PostgreSQL
// (`SELECT … FOR UPDATE`; a channel not yet stored is inserted only if no other node inserted it meanwhile).
// So two nodes never accept two vouchers against one cumulative amount.
import type { Channel, ChannelStorage, ChannelUpdateResult } from "@x402/evm/batch-settlement/server";
import type { Kysely, Selectable } from "kysely";
import { Prepared } from "./prepared.ts";
import { Repository } from "./repository.ts";
import type { BatchChannelTable, Database } from "./schema.ts";
import type { SyncSqlite } from "./sqlite-dialect.ts";

/** A channel's row as the SDK's channel fills it (what was written off is the channel manager's: writeOff). */
type ChannelRow = Omit<Selectable<BatchChannelTable>, "written_off_to">;
type Update = (current: Channel | undefined) => Channel | undefined;
type ChannelKey = { network: string; channel_id: string };

/** Every column, in the order the upsert binds them (a column missing here fails its first run). */
const COLUMNS = [
  "network",
  "channel_id",
  "payer",
  "channel_config",
  "charged_cumulative",
  "signed_max_claimable",
  "signature",
  "balance",
  "total_claimed",
  "withdraw_requested_at",
  "refund_nonce",
  "onchain_synced_at",
  "last_request_at",
  "pending_id",
  "pending_max_claimable",
  "pending_expires_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof ChannelRow>;
const KEY_COLUMNS = ["network", "channel_id"] as const;

function channelKey(channelId: string): string {
  return channelId.toLowerCase();
}

function keyOf(network: string, channelId: string): ChannelKey {
  return { network, channel_id: channelKey(channelId) };
}

function toChannel(row: ChannelRow): Channel {
  const pending =
    row.pending_id !== null && row.pending_max_claimable !== null && row.pending_expires_at !== null
      ? {
          pendingId: row.pending_id,
          signedMaxClaimable: row.pending_max_claimable,
          expiresAt: Number(row.pending_expires_at),
        }
      : undefined;
  return {
    channelId: row.channel_id,
    channelConfig: JSON.parse(row.channel_config) as Channel["channelConfig"],
    chargedCumulativeAmount: row.charged_cumulative,
    signedMaxClaimable: row.signed_max_claimable,
    signature: row.signature,
    balance: row.balance,
    totalClaimed: row.total_claimed,
    withdrawRequestedAt: Number(row.withdraw_requested_at),
    refundNonce: Number(row.refund_nonce),
    ...(row.onchain_synced_at !== null ? { onchainSyncedAt: Number(row.onchain_synced_at) } : {}),
    lastRequestTimestamp: Number(row.last_request_at),
    ...(pending ? { pendingRequest: pending } : {}),
  };
}

function toRow(network: string, channel: Channel, now: Date): ChannelRow {
  return {
    network,
    channel_id: channelKey(channel.channelId),
    payer: channel.channelConfig.payer.toLowerCase(),
    channel_config: JSON.stringify(channel.channelConfig),
    charged_cumulative: channel.chargedCumulativeAmount,
    signed_max_claimable: channel.signedMaxClaimable,
    signature: channel.signature,
    balance: channel.balance,
    total_claimed: channel.totalClaimed,
    withdraw_requested_at: channel.withdrawRequestedAt,
    refund_nonce: channel.refundNonce,
    onchain_synced_at: channel.onchainSyncedAt ?? null,
    last_request_at: channel.lastRequestTimestamp,
    pending_id: channel.pendingRequest?.pendingId ?? null,
    pending_max_claimable: channel.pendingRequest?.signedMaxClaimable ?? null,
    pending_expires_at: channel.pendingRequest?.expiresAt ?? null,
    updated_at: now.toISOString(),
  };
}

/** What the callback decided, as the SDK's storage reports it, and the write it takes. */
function decide(
  current: Channel | undefined,
  next: Channel | undefined,
): ChannelUpdateResult & { write: "none" | "delete" | "put" } {
  if (next === current) return { channel: current, status: "unchanged", write: "none" };
  if (!next) return current ? { channel: undefined, status: "deleted", write: "delete" } : unchangedNone;
  return { channel: next, status: "updated", write: "put" };
}
const unchangedNone = { channel: undefined, status: "unchanged", write: "none" } as const;

class RaceLost extends Error {}

export class ChannelRepository extends Repository {
  private readonly sqlite: SyncSqlite | undefined;

  // A voucher call reads its channel three times and writes it twice (the SDK's get and two updateChannel):
  // those statements are compiled once (prepared.ts), which costs less than building them with Kysely each time.
  private readonly selectOne = new Prepared((v: ChannelKey) => this.select(v));
  private readonly selectLocked = new Prepared((v: ChannelKey) => this.select(v).forUpdate());
  private readonly upsert = new Prepared((v: ChannelRow) => {
    const row = Object.fromEntries(COLUMNS.map((column) => [column, v[column]])) as ChannelRow;
    const changes = Object.fromEntries(
      COLUMNS.filter((column) => !(KEY_COLUMNS as readonly string[]).includes(column)).map((column) => [
        column,
        v[column],
      ]),
    );
    return this.db
      .insertInto("batch_channels")
      .values(row)
      .onConflict((oc) => oc.columns([...KEY_COLUMNS]).doUpdateSet(changes));
  });

  constructor(db: Kysely<Database>, sqlite?: SyncSqlite) {
    super(db);
    this.sqlite = sqlite;
  }

  /** The SDK's ChannelStorage over this network's channels. */
  storage(network: string): ChannelStorage {
    return {
      get: (channelId) => this.get(network, channelId),
      list: () => this.list(network),
      updateChannel: (channelId, update) => this.update(network, channelId, update),
    };
  }

  async get(network: string, channelId: string): Promise<Channel | undefined> {
    const key = keyOf(network, channelId);
    const sqlite = this.sqlite;
    const row =
      sqlite && !sqlite.inTransaction
        ? sqlite.rows(this.selectOne.with(key))[0]
        : (await this.selectOne.run(this.db, key)).rows[0];
    return row ? toChannel(row) : undefined;
  }

  /** Every channel of the network, or of every network. */
  async list(network?: string): Promise<Channel[]> {
    const rows = await this.db
      .selectFrom("batch_channels")
      .selectAll()
      .$if(network !== undefined, (qb) => qb.where("network", "=", network as string))
      .orderBy("channel_id")
      .execute();
    return rows.map(toChannel);
  }

  /** Every channel with its network (the operator's figures and the channel manager). */
  async listAll(): Promise<Array<{ network: string; channel: Channel; writtenOffTo: bigint }>> {
    const rows = await this.db.selectFrom("batch_channels").selectAll().orderBy("channel_id").execute();
    return rows.map((row) => ({
      network: row.network,
      channel: toChannel(row),
      writtenOffTo: BigInt(row.written_off_to),
    }));
  }

  /** The network's channels with charges written off (their charges' cumulative total written off, atomic). */
  async writtenOff(network: string): Promise<Map<string, bigint>> {
    const rows = await this.db
      .selectFrom("batch_channels")
      .select(["channel_id", "written_off_to"])
      .where("network", "=", network)
      .where("written_off_to", "!=", "0")
      .execute();
    return new Map(rows.map((r) => [r.channel_id, BigInt(r.written_off_to)]));
  }

  /** The SDK's atomic read-decide-write of one channel (see the top of this file). */
  async update(
    network: string,
    channelId: string,
    update: Update,
    now = new Date(),
  ): Promise<ChannelUpdateResult> {
    const sqlite = this.sqlite;
    if (sqlite && !sqlite.inTransaction) {
      return sqlite.transaction(() => {
        const rows = sqlite.rows(this.selectOne.with(keyOf(network, channelId)));
        const current = rows[0] ? toChannel(rows[0]) : undefined;
        const { write, ...result } = decide(current, update(current));
        if (write === "delete") sqlite.changes(this.remove(this.db, network, channelId).compile());
        if (write === "put" && result.channel)
          sqlite.changes(this.upsert.with(toRow(network, result.channel, now)));
        return result;
      }, true);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db
          .transaction()
          .execute((trx) => this.updateIn(trx, network, channelId, update, now));
      } catch (error) {
        // Another node stored this new channel between our read and our insert: read it again, locked.
        if (!(error instanceof RaceLost) || attempt >= 5) throw error;
      }
    }
  }

  private async updateIn(
    trx: Kysely<Database>,
    network: string,
    channelId: string,
    update: Update,
    now: Date,
  ): Promise<ChannelUpdateResult> {
    const key = keyOf(network, channelId);
    const [row] = (await (this.postgres ? this.selectLocked : this.selectOne).run(trx, key)).rows;
    const current = row ? toChannel(row) : undefined;
    const { write, ...result } = decide(current, update(current));
    if (write === "delete") await this.remove(trx, network, channelId).execute();
    if (write === "put" && result.channel) {
      const values = toRow(network, result.channel, now);
      if (current) await this.upsert.run(trx, values);
      else {
        const inserted = await trx
          .insertInto("batch_channels")
          .values(values)
          .onConflict((oc) => oc.columns(["network", "channel_id"]).doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) throw new RaceLost();
      }
    }
    return result;
  }

  /** `key.channel_id` is already lower case (channelKey): the statement is compiled once, with placeholders. */
  private select(key: ChannelKey) {
    return this.db
      .selectFrom("batch_channels")
      .selectAll()
      .where("network", "=", key.network)
      .where("channel_id", "=", key.channel_id);
  }

  private remove(db: Kysely<Database>, network: string, channelId: string) {
    return db
      .deleteFrom("batch_channels")
      .where("network", "=", network)
      .where("channel_id", "=", channelKey(channelId));
  }
}
