import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { openTestStore } from "../../test/test-store.ts";
import { Prepared } from "./prepared.ts";
import type { Store } from "./store.ts";

let store: Store;
beforeEach(async () => {
  store = await openTestStore();
});
afterEach(() => store.close());

const claimedAt = "2026-11-25T00:00:00.000Z";

test("a prepared statement runs with each run's values, as the builder's statement would", async () => {
  const insert = new Prepared((v: { nonce_key: string; sku: string }) =>
    store.db
      .insertInto("nonce_claims")
      .values({ nonce_key: v.nonce_key, sku: v.sku, claimed_at: claimedAt })
      .returning(["nonce_key", "sku", "claimed_at"]),
  );
  const first = await insert.run(store.db, { nonce_key: "a", sku: "s1" });
  const second = await insert.run(store.db, { nonce_key: "b", sku: "s2" });
  assert.deepEqual(
    first.rows.map((row) => ({ ...row })),
    [{ nonce_key: "a", sku: "s1", claimed_at: claimedAt }],
  );
  assert.deepEqual(
    second.rows.map((row) => ({ ...row })),
    [{ nonce_key: "b", sku: "s2", claimed_at: claimedAt }],
  );
  const select = new Prepared((v: { sku: string }) =>
    store.db.selectFrom("nonce_claims").select("nonce_key").where("sku", "=", v.sku),
  );
  assert.deepEqual(
    (await select.run(store.db, { sku: "s2" })).rows.map((row) => ({ ...row })),
    [{ nonce_key: "b" }],
  );
  assert.deepEqual((await select.run(store.db, { sku: "none" })).rows, []);
});

test("it runs inside a transaction, which a rollback undoes", async () => {
  const insert = new Prepared((v: { nonce_key: string }) =>
    store.db.insertInto("nonce_claims").values({ nonce_key: v.nonce_key, sku: "s", claimed_at: claimedAt }),
  );
  await assert.rejects(
    store.db.transaction().execute(async (trx) => {
      await insert.run(trx, { nonce_key: "rolled-back" });
      throw new Error("abort");
    }),
    /abort/,
  );
  assert.equal(await store.nonces.claim("rolled-back", "s"), true);
});

test("a statement that would bind a wrong value is refused at its first run", async () => {
  const altered = new Prepared((v: { prefix: string }) =>
    store.db.selectFrom("nonce_claims").selectAll().where("nonce_key", "like", `${v.prefix}%`),
  );
  await assert.rejects(altered.run(store.db, { prefix: "a" }), /a value was altered/);
  // The builder reads an object's keys: the placeholders have none, so nothing would be bound.
  const unbound = new Prepared((v: { nonce_key: string; sku: string; claimed_at: string }) =>
    store.db.insertInto("nonce_claims").values(v),
  );
  await assert.rejects(
    unbound.run(store.db, { nonce_key: "k", sku: "s", claimed_at: claimedAt }),
    /never bound/,
  );
  const insert = new Prepared((v: { nonce_key: string; sku: string }) =>
    store.db.insertInto("nonce_claims").values({ nonce_key: v.nonce_key, sku: v.sku, claimed_at: claimedAt }),
  );
  await assert.rejects(insert.run(store.db, { nonce_key: "k" } as never), /no value for "sku"/);
});
