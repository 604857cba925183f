import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, test } from "node:test";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { openTestStore, TEST_DATABASE_URL, testDatabase } from "../../test/test-store.ts";
import { openStore, type Store } from "./store.ts";

const BASE = "eip155:8453";
const ID = "0xAB00000000000000000000000000000000000000000000000000000000000001";

function channel(overrides: Partial<Channel> = {}): Channel {
  return {
    channelId: ID.toLowerCase(),
    channelConfig: {
      payer: "0x1111111111111111111111111111111111111111",
      payerAuthorizer: "0x1111111111111111111111111111111111111111",
      receiver: "0x2222222222222222222222222222222222222222",
      receiverAuthorizer: "0x3333333333333333333333333333333333333333",
      token: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      withdrawDelay: 900,
      salt: "0x0000000000000000000000000000000000000000000000000000000000000000",
    },
    chargedCumulativeAmount: "0",
    signedMaxClaimable: "1000",
    signature: "0xsig",
    balance: "50000",
    totalClaimed: "0",
    withdrawRequestedAt: 0,
    refundNonce: 0,
    onchainSyncedAt: 1_700_000_000_000,
    lastRequestTimestamp: 1_700_000_000_000,
    ...overrides,
  };
}

let store: Store;
beforeEach(async () => {
  store = await openTestStore();
});
afterEach(() => store.close());

describe("ChannelRepository", () => {
  test("a channel is stored whole (its reservation too), found by any case of its id, per network", async () => {
    const storage = store.channels.storage(BASE);
    const pending = { pendingId: "p1", signedMaxClaimable: "2000", expiresAt: 1_700_000_060_000 };
    const result = await storage.updateChannel(ID, (current) => {
      assert.equal(current, undefined);
      return channel({ pendingRequest: pending });
    });
    assert.equal(result.status, "updated");
    assert.deepEqual(await storage.get(ID.toLowerCase()), channel({ pendingRequest: pending }));
    assert.deepEqual(await storage.list(), [channel({ pendingRequest: pending })]);
    assert.equal(await store.channels.storage("eip155:84532").get(ID), undefined);

    const cleared = await storage.updateChannel(ID, (c) => c && { ...c, pendingRequest: undefined });
    assert.equal(cleared.status, "updated");
    assert.equal((await storage.get(ID))?.pendingRequest, undefined);
  });

  test("the callback's answer decides: the same object is unchanged, undefined deletes", async () => {
    const storage = store.channels.storage(BASE);
    assert.deepEqual(await storage.updateChannel(ID, () => undefined), {
      channel: undefined,
      status: "unchanged",
    });
    await storage.updateChannel(ID, () => channel());
    const same = await storage.updateChannel(ID, (current) => current);
    assert.equal(same.status, "unchanged");
    assert.equal(same.channel?.balance, "50000");
    assert.equal((await storage.updateChannel(ID, () => undefined)).status, "deleted");
    assert.deepEqual(await storage.list(), []);
  });

  test("a callback that throws writes nothing", async () => {
    const storage = store.channels.storage(BASE);
    await storage.updateChannel(ID, () => channel());
    await assert.rejects(
      storage.updateChannel(ID, () => {
        throw new Error("refused");
      }),
      /refused/,
    );
    assert.equal((await storage.get(ID))?.chargedCumulativeAmount, "0");
  });
});

describe("ChannelRepository on two nodes sharing one database", () => {
  test("60 vouchers at one cumulative amount, from two nodes at once: exactly one is accepted", async () => {
    const nodes = await twoNodes();
    try {
      await nodes[0].channels.storage(BASE).updateChannel(ID, () => channel());
      // Each attempt is what the scheme does: accept a voucher only if the channel still charges the amount the
      // voucher was signed against, then charge the price.
      const attempt = (node: Store) =>
        node.channels.storage(BASE).updateChannel(ID, (current) => {
          if (current?.chargedCumulativeAmount !== "0") return current;
          return { ...current, chargedCumulativeAmount: "1000", signedMaxClaimable: "1000" };
        });
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(nodes[i % 2] as Store)));
      assert.equal(results.filter((r) => r.status === "updated").length, 1);
      assert.equal((await nodes[1].channels.get(BASE, ID))?.chargedCumulativeAmount, "1000");
    } finally {
      await nodes.close();
    }
  });

  test("a new channel stored by both nodes at once is created once, the other sees it", async () => {
    const nodes = await twoNodes();
    try {
      const seen: Array<Channel | undefined> = [];
      const open = (node: Store) =>
        node.channels.storage(BASE).updateChannel(ID, (current) => {
          seen.push(current);
          return current ?? channel();
        });
      const results = await Promise.all([open(nodes[0]), open(nodes[1]), open(nodes[0]), open(nodes[1])]);
      assert.equal(results.filter((r) => r.status === "updated").length, 1);
      assert.equal((await nodes[0].channels.list(BASE)).length, 1);
    } finally {
      await nodes.close();
    }
  });
});

describe("ChannelRepository on a SQLite file another process writes", {
  skip: Boolean(TEST_DATABASE_URL),
}, () => {
  test("a write by another connection while a channel is decided cannot make that update fail", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-channels-"));
    const file = path.join(dir, "paycall.db");
    const node = await openStore({ kind: "sqlite", file });
    // Another process (a worker, a second node on the file) that does not wait for locks.
    const other = new DatabaseSync(file);
    try {
      await node.channels.storage(BASE).updateChannel(ID, () => channel());
      let otherWrite: unknown;
      const result = await node.channels.storage(BASE).updateChannel(ID, (current) => {
        // Between this update's read and its write: the other connection writes and commits, if it can.
        try {
          other.exec("UPDATE batch_channels SET balance = '1'");
        } catch (error) {
          otherWrite = error;
        }
        return current && { ...current, chargedCumulativeAmount: "1000" };
      });
      // The update held the write lock from its start, so the other write was the one refused (a deferred
      // transaction would have let it commit and then failed this update on its stale read).
      assert.equal(result.status, "updated");
      assert.match(String(otherWrite), /locked|busy/i);
      const stored = await node.channels.get(BASE, ID);
      assert.equal(stored?.chargedCumulativeAmount, "1000");
      assert.equal(stored?.balance, "50000");
    } finally {
      other.close();
      await node.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Two stores over one database: two PostgreSQL pools on one schema, or two connections to one SQLite file. */
async function twoNodes(): Promise<[Store, Store] & { close: () => Promise<void> }> {
  let stores: [Store, Store];
  let cleanup: () => Promise<void>;
  if (TEST_DATABASE_URL) {
    const database = testDatabase();
    const open = () =>
      openStore({
        kind: "postgres",
        url: TEST_DATABASE_URL as string,
        schema: database.env.DATABASE_SCHEMA,
        poolSize: 4,
      });
    const first = await open();
    stores = [first, await open()];
    cleanup = database.drop;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-channels-"));
    const file = path.join(dir, "paycall.db");
    const first = await openStore({ kind: "sqlite", file });
    stores = [first, await openStore({ kind: "sqlite", file })];
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  return Object.assign(stores, {
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await cleanup();
    },
  });
}
