import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { openTestStore } from "../../test/test-store.ts";
import { CacheRepository } from "./cache.ts";
import type { LedgerEntry } from "./ledger.ts";
import { openStore, type Store } from "./store.ts";

const T0 = new Date("2025-03-01T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

let store: Store;

beforeEach(async () => {
  store = await openTestStore();
});

afterEach(async () => {
  await store.close();
});

describe("CacheRepository", () => {
  test("getRecent: another node's write shows after maxAgeMs, and at once where a miss is not remembered", async () => {
    const otherNode = new CacheRepository(store.db);
    assert.equal(await store.cache.getRecent("fx", "USD", 60_000), undefined);
    assert.equal(await store.cache.getRecent("fx", "USD", 60_000, { rememberMiss: false }), undefined);
    await otherNode.put("fx", "USD", { body: { rate: 1.08 }, fetchedAt: T0.toISOString() });
    assert.equal(await store.cache.getRecent("fx", "USD", 60_000), undefined, "a remembered miss");
    const found = await store.cache.getRecent<{ rate: number }>("fx", "USD", 60_000, { rememberMiss: false });
    assert.equal(found?.body.rate, 1.08);
    assert.equal((await store.cache.getRecent<{ rate: number }>("fx", "USD", 60_000))?.body.rate, 1.08);
  });

  test("put then get returns the document with its metadata", async () => {
    await store.cache.put("fx", "EUR-USD", {
      body: { rate: 1.08, nested: [1, "two", null] },
      fetchedAt: T0.toISOString(),
      expiresAt: at(3600_000).toISOString(),
      etag: '"abc"',
      lastModified: "Sat, 01 Mar 2025 11:00:00 GMT",
      recordedSample: true,
    });
    assert.deepEqual(await store.cache.get("fx", "EUR-USD"), {
      body: { rate: 1.08, nested: [1, "two", null] },
      fetchedAt: T0.toISOString(),
      expiresAt: at(3600_000).toISOString(),
      etag: '"abc"',
      lastModified: "Sat, 01 Mar 2025 11:00:00 GMT",
      recordedSample: true,
    });
  });

  test("optional metadata defaults to null and recordedSample to false", async () => {
    await store.cache.put("fx", "k", { body: "plain", fetchedAt: T0.toISOString() });
    assert.deepEqual(await store.cache.get("fx", "k"), {
      body: "plain",
      fetchedAt: T0.toISOString(),
      expiresAt: null,
      etag: null,
      lastModified: null,
      recordedSample: false,
    });
  });

  test("get of an unknown key or of another family is undefined", async () => {
    await store.cache.put("fx", "k", { body: 1, fetchedAt: T0.toISOString() });
    assert.equal(await store.cache.get("fx", "missing"), undefined);
    assert.equal(await store.cache.get("other", "k"), undefined);
  });

  test("put on an existing key overwrites body and every field", async () => {
    await store.cache.put("fx", "k", {
      body: { v: 1 },
      fetchedAt: T0.toISOString(),
      etag: '"old"',
      recordedSample: true,
    });
    await store.cache.put("fx", "k", { body: { v: 2 }, fetchedAt: at(1000).toISOString() });
    const doc = await store.cache.get<{ v: number }>("fx", "k");
    assert.deepEqual(doc?.body, { v: 2 });
    assert.equal(doc?.fetchedAt, at(1000).toISOString());
    assert.equal(doc?.etag, null);
    assert.equal(doc?.recordedSample, false);
    assert.equal(await store.cache.count("fx"), 1);
  });

  test("putMany writes all documents of one family", async () => {
    await store.cache.putMany("fx", [
      { key: "b", body: 2, fetchedAt: T0.toISOString() },
      { key: "a", body: 1, fetchedAt: T0.toISOString(), recordedSample: true },
      { key: "c", body: 3, fetchedAt: T0.toISOString() },
    ]);
    assert.deepEqual(await store.cache.keys("fx"), ["a", "b", "c"]);
    assert.equal(await store.cache.count("fx"), 3);
    assert.equal((await store.cache.get("fx", "a"))?.recordedSample, true);
    assert.equal((await store.cache.get("fx", "c"))?.body, 3);
  });

  test("putMany is atomic: one bad document leaves nothing written", async () => {
    await store.cache.put("fx", "a", { body: "before", fetchedAt: T0.toISOString() });
    await assert.rejects(
      store.cache.putMany<unknown>("fx", [
        { key: "a", body: "after", fetchedAt: at(1).toISOString() },
        { key: "b", body: 2, fetchedAt: at(1).toISOString() },
        { key: "c", body: { big: 1n }, fetchedAt: at(1).toISOString() },
      ]),
      TypeError,
    );
    assert.deepEqual(await store.cache.keys("fx"), ["a"]);
    assert.equal((await store.cache.get("fx", "a"))?.body, "before");
    // the store is still usable after the rollback
    await store.cache.put("fx", "d", { body: 4, fetchedAt: T0.toISOString() });
    assert.equal(await store.cache.count("fx"), 2);
  });

  test("keys are sorted and count is per family", async () => {
    await store.cache.put("one", "z", { body: 0, fetchedAt: T0.toISOString() });
    await store.cache.put("one", "m", { body: 0, fetchedAt: T0.toISOString() });
    await store.cache.put("two", "a", { body: 0, fetchedAt: T0.toISOString() });
    assert.deepEqual(await store.cache.keys("one"), ["m", "z"]);
    assert.deepEqual(await store.cache.keys("two"), ["a"]);
    assert.deepEqual(await store.cache.keys("none"), []);
    assert.equal(await store.cache.count("one"), 2);
    assert.equal(await store.cache.count("none"), 0);
  });
});

describe("NonceClaimRepository", () => {
  test("purgeBefore drops only older claims, which can then be claimed again", async () => {
    await store.nonces.claim("old", "sku", T0);
    await store.nonces.claim("new", "sku", at(10_000));
    assert.equal(await store.nonces.purgeBefore(at(5000)), 1);
    assert.equal(await store.nonces.claim("old", "sku", at(20_000)), true);
    assert.equal(await store.nonces.claim("new", "sku", at(20_000)), false);
  });

  test("a nonce is claimed once; a second claim is refused", async () => {
    assert.equal(await store.nonces.claim("base:0xabc:1", "sku.a", T0), true);
    assert.equal(await store.nonces.claim("base:0xabc:1", "sku.b", at(1)), false);
    assert.equal(await store.nonces.claim("base:0xabc:2", "sku.a", at(2)), true);
  });

  test("release makes the nonce claimable again", async () => {
    assert.equal(await store.nonces.claim("n", "sku", T0), true);
    await store.nonces.release("n");
    assert.equal(await store.nonces.claim("n", "sku", at(1)), true);
    assert.equal(await store.nonces.claim("n", "sku", at(2)), false);
  });

  test("releasing an unclaimed nonce is harmless", async () => {
    await store.nonces.release("never");
    assert.equal(await store.nonces.claim("never", "sku"), true);
  });

  test("20 concurrent claims of one nonce: exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => store.nonces.claim("race", "sku")));
    assert.equal(results.filter((r) => r === true).length, 1);
    assert.equal(results.filter((r) => r === false).length, 19);
  });
});

describe("SampleCounterRepository", () => {
  test("increment counts uses per bucket", async () => {
    const expires = at(3600_000);
    assert.equal(await store.samples.increment("s:ip1:h0", expires), 1);
    assert.equal(await store.samples.increment("s:ip1:h0", expires), 2);
    assert.equal(await store.samples.increment("s:ip2:h0", expires), 1);
    assert.equal(await store.samples.increment("s:ip1:h0", expires), 3);
  });

  test("concurrent increments are all counted", async () => {
    const counts = await Promise.all(Array.from({ length: 10 }, () => store.samples.increment("b", at(1))));
    assert.deepEqual(
      [...counts].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  test("purgeExpired removes only expired buckets, which then count from 1 again", async () => {
    await store.samples.increment("old", at(1000));
    await store.samples.increment("old", at(1000));
    await store.samples.increment("fresh", at(10_000));
    await store.samples.increment("fresh", at(10_000));
    await store.samples.purgeExpired(at(5000));
    assert.equal(await store.samples.increment("old", at(20_000)), 1);
    assert.equal(await store.samples.increment("fresh", at(10_000)), 3);
  });
});

describe("WarmerRunRepository", () => {
  test("a warmer that never ran has an empty status", async () => {
    assert.deepEqual(await store.warmerRuns.status("w"), {
      warmer: "w",
      lastRunAt: null,
      lastFinishedAt: null,
      lastOk: null,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      counts: null,
      runs: 0,
    });
  });

  test("a started, unfinished run shows as the last run without an outcome", async () => {
    await store.warmerRuns.start("w", T0);
    const status = await store.warmerRuns.status("w");
    assert.equal(status.lastRunAt, T0.toISOString());
    assert.equal(status.lastFinishedAt, null);
    assert.equal(status.lastOk, null);
    assert.equal(status.lastSuccessAt, null);
    assert.equal(status.runs, 1);
  });

  test("status reports the last run, last success with its counts, and last error", async () => {
    const r1 = await store.warmerRuns.start("w", T0);
    await store.warmerRuns.finish(r1, { ok: true, counts: { rows: 10 } }, at(1000));
    const r2 = await store.warmerRuns.start("w", at(60_000));
    await store.warmerRuns.finish(r2, { ok: false, error: "upstream down" }, at(61_000));
    const other = await store.warmerRuns.start("other", at(120_000));
    await store.warmerRuns.finish(other, { ok: true, counts: { rows: 99 } }, at(121_000));

    assert.deepEqual(await store.warmerRuns.status("w"), {
      warmer: "w",
      lastRunAt: at(60_000).toISOString(),
      lastFinishedAt: at(61_000).toISOString(),
      lastOk: false,
      lastSuccessAt: at(1000).toISOString(),
      lastError: "upstream down",
      lastErrorAt: at(61_000).toISOString(),
      counts: { rows: 10 },
      runs: 2,
    });

    const r3 = await store.warmerRuns.start("w", at(180_000));
    await store.warmerRuns.finish(r3, { ok: true, counts: { rows: 12, skipped: 1 } }, at(181_000));
    const status = await store.warmerRuns.status("w");
    assert.equal(status.lastRunAt, at(180_000).toISOString());
    assert.equal(status.lastOk, true);
    assert.equal(status.lastSuccessAt, at(181_000).toISOString());
    assert.deepEqual(status.counts, { rows: 12, skipped: 1 });
    assert.equal(status.runs, 3);
  });
});

describe("LedgerRepository", () => {
  const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
    sku: "fx.rate",
    requestHash: "h1",
    network: "base-sepolia",
    payer: "0xPayer",
    amount: "5000",
    asset: "0xUSDC",
    payTo: "0xPayTo",
    transaction: "0xtx",
    responseSha256: "sha",
    state: "settled",
    ...over,
  });

  test("record then get returns the stored row", async () => {
    const id = await store.ledger.record(
      entry({ state: "unknown", transaction: null, paymentPayload: { sig: "x" }, requirements: { a: 1 } }),
      T0,
    );
    const row = await store.ledger.get(id);
    assert.ok(row);
    assert.equal(row.created_at, T0.toISOString());
    assert.equal(row.sku, "fx.rate");
    assert.equal(row.payer, "0xPayer");
    assert.equal(row.amount, "5000");
    assert.equal(row.pay_to, "0xPayTo");
    assert.equal(row.state, "unknown");
    assert.equal(row.transaction, null);
    assert.equal(row.error_reason, null);
    assert.deepEqual(JSON.parse(row.payment_payload!), { sig: "x" });
    assert.deepEqual(JSON.parse(row.requirements!), { a: 1 });
    assert.equal(row.reconciled_at, null);
    assert.equal(await store.ledger.get(id + 1000), undefined);
  });

  test("without a payment payload nothing is kept", async () => {
    const id = await store.ledger.record(entry());
    const row = await store.ledger.get(id);
    assert.equal(row?.payment_payload, null);
    assert.equal(row?.requirements, null);
  });

  test("list is newest first, filters by state and honours the limit", async () => {
    const a = await store.ledger.record(entry({ state: "settled" }));
    const b = await store.ledger.record(entry({ state: "failed", errorReason: "insufficient_funds" }));
    const c = await store.ledger.record(entry({ state: "settled" }));
    assert.deepEqual(
      (await store.ledger.list()).map((r) => r.id),
      [c, b, a],
    );
    assert.deepEqual(
      (await store.ledger.list({ state: "settled" })).map((r) => r.id),
      [c, a],
    );
    const failed = await store.ledger.list({ state: "failed" });
    assert.deepEqual(
      failed.map((r) => [r.id, r.error_reason]),
      [[b, "insufficient_funds"]],
    );
    assert.deepEqual(await store.ledger.list({ state: "unknown" }), []);
    assert.deepEqual(
      (await store.ledger.list({ limit: 2 })).map((r) => r.id),
      [c, b],
    );
  });

  test("totals sums atomic amounts per state exactly, as strings", async () => {
    // beyond Number.MAX_SAFE_INTEGER, so a float sum would be wrong
    await store.ledger.record(entry({ amount: "9007199254740993" }));
    await store.ledger.record(entry({ amount: "7" }));
    await store.ledger.record(entry({ state: "failed", amount: "5000" }));
    const totals = await store.ledger.totals();
    const byState = Object.fromEntries(totals.map((t) => [t.state, t]));
    assert.deepEqual(byState, {
      settled: { state: "settled", count: 2, atomic: "9007199254741000" },
      failed: { state: "failed", count: 1, atomic: "5000" },
    });
    assert.equal(totals.length, 2);
  });

  test("totals of an empty ledger is empty", async () => {
    assert.deepEqual(await store.ledger.totals(), []);
  });

  test("resolve sets the outcome, stamps reconciliation and drops the payment payload", async () => {
    const id = await store.ledger.record(
      entry({ state: "unknown", transaction: null, paymentPayload: { secret: "sig" } }),
      T0,
    );
    await store.ledger.resolve(id, "settled", "0xfinal", null, { now: at(5000) });
    const row = await store.ledger.get(id);
    assert.equal(row?.state, "settled");
    assert.equal(row?.transaction, "0xfinal");
    assert.equal(row?.error_reason, null);
    assert.equal(row?.reconciled_at, at(5000).toISOString());
    assert.equal(row?.payment_payload, null);
    assert.equal(row?.created_at, T0.toISOString());
    assert.deepEqual(
      (await store.ledger.list({ state: "unknown" })).map((r) => r.id),
      [],
    );
  });

  test("claim takes a payment once and opens its pending row with the payload", async () => {
    const claimed = {
      ...entry({ state: "pending", transaction: null, responseSha256: "" }),
      nonceKey: "base:0xabc:1",
    };
    const id = await store.ledger.claim(
      { ...claimed, paymentPayload: { sig: "x" }, requirements: { a: 1 } },
      T0,
    );
    assert.ok(id !== undefined);
    const row = await store.ledger.get(id);
    assert.deepEqual(
      [row?.state, row?.nonce_key, row?.created_at, row?.delivered, row?.transaction],
      ["pending", "base:0xabc:1", T0.toISOString(), 0, null],
    );
    assert.deepEqual(JSON.parse(row?.payment_payload ?? "null"), { sig: "x" });
    assert.equal(await store.ledger.claim({ ...claimed, sku: "other" }, at(1)), undefined);
    assert.equal(await store.nonces.claim("base:0xabc:1", "sku", at(2)), false);
    assert.equal((await store.ledger.list()).length, 1);
  });

  test("20 concurrent claims of one payment: one wins, and only it has a row", async () => {
    const claimed = { ...entry({ state: "pending" }), nonceKey: "base:0xabc:9" };
    const ids = await Promise.all(Array.from({ length: 20 }, () => store.ledger.claim(claimed)));
    assert.equal(ids.filter((id) => id !== undefined).length, 1);
    assert.equal((await store.ledger.list()).length, 1);
  });

  test("a claim made while another transaction is open waits for it, and both land", async () => {
    const claimed = { ...entry({ state: "pending" }), nonceKey: "base:0xabc:10" };
    let claim: Promise<number | undefined> | undefined;
    await store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("nonce_claims")
        .values({ nonce_key: "other", sku: "sku", claimed_at: T0.toISOString() })
        .execute();
      claim = store.ledger.claim(claimed);
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    assert.ok((await claim) !== undefined);
    assert.equal(await store.nonces.claim("other", "sku"), false);
    assert.equal((await store.ledger.list()).length, 1);
  });

  test("a claim whose pending row cannot be written leaves no claim behind", async () => {
    const broken = {
      ...entry({ state: "pending" }),
      network: null as unknown as string,
      nonceKey: "n-broken",
    };
    await assert.rejects(store.ledger.claim(broken));
    assert.equal((await store.ledger.list()).length, 0);
    assert.equal(await store.nonces.claim("n-broken", "sku"), true);
  });

  test("release frees a payment never settled; a decided row and its claim stay", async () => {
    const open = await store.ledger.claim({ ...entry({ state: "pending" }), nonceKey: "n1" });
    const decided = await store.ledger.claim({ ...entry({ state: "pending" }), nonceKey: "n2" });
    assert.ok(open !== undefined && decided !== undefined);
    await store.ledger.resolve(decided, "failed", null, "insufficient_funds", { responseSha256: "digest" });
    await store.ledger.release("n1");
    assert.equal(await store.ledger.get(open), undefined);
    assert.ok((await store.ledger.claim({ ...entry({ state: "pending" }), nonceKey: "n1" })) !== undefined);
    await store.ledger.release("n2");
    const row = await store.ledger.get(decided);
    assert.deepEqual([row?.state, row?.response_sha256], ["failed", "digest"]);
    assert.equal(await store.nonces.claim("n2", "sku"), false);
  });

  test("resolve holds an uncertain answer with its payload, and delivery drops both; the payer stays unless given", async () => {
    const id = await store.ledger.record(
      entry({ state: "pending", transaction: null, paymentPayload: { sig: "x" }, responseSha256: "" }),
    );
    await store.ledger.resolve(id, "unknown", null, "timeout", {
      heldResponse: '{"a":1}',
      responseSha256: "digest",
    });
    const outcome = async () => {
      const row = await store.ledger.get(id);
      return [
        row?.state,
        row?.held_response,
        row?.payment_payload,
        row?.payer,
        row?.response_sha256,
        row?.delivered,
      ];
    };
    assert.deepEqual(await outcome(), ["unknown", '{"a":1}', '{"sig":"x"}', "0xPayer", "digest", 0]);
    await store.ledger.resolve(id, "settled", "0xtx2", null, { payer: "0xOther", delivered: true });
    assert.deepEqual(await outcome(), ["settled", null, null, "0xOther", "digest", 1]);
    await store.ledger.resolve(id, "settled", "0xtx2", null, {});
    assert.equal((await store.ledger.get(id))?.delivered, 1, "a later outcome never takes delivery back");
  });

  test("ids go past 2^31: refused payments use ids up too", async () => {
    await store.ledger.record(entry());
    if (store.kind === "postgres") await sql`select setval('ledger_id_seq', 3000000000)`.execute(store.db);
    else await sql`update sqlite_sequence set seq = 3000000000 where name = 'ledger'`.execute(store.db);
    const id = await store.ledger.claim({ ...entry({ state: "pending" }), nonceKey: "big" });
    assert.equal(id, 3_000_000_001);
    await store.ledger.resolve(id, "settled", "0xbig", null, { delivered: true, responseSha256: "d" });
    assert.deepEqual(
      [(await store.ledger.get(id))?.id, (await store.ledger.get(id))?.state],
      [id, "settled"],
    );
  });

  test("resolve to failed keeps the reason", async () => {
    const id = await store.ledger.record(entry({ state: "unknown", paymentPayload: {} }));
    await store.ledger.resolve(id, "failed", null, "transaction_reverted");
    const row = await store.ledger.get(id);
    assert.equal(row?.state, "failed");
    assert.equal(row?.error_reason, "transaction_reverted");
    assert.equal(row?.payment_payload, null);
  });
});

describe("LocalUsdcRepository", () => {
  const NET = "base-sepolia";
  const PAYER = "0xAbCdEf0000000000000000000000000000000001";
  const PAY_TO = "0x1111111111111111111111111111111111111AaA";

  test("credit adds to the balance and returns the new balance", async () => {
    assert.equal(await store.localUsdc.balance(NET, PAYER), 0n);
    assert.equal(await store.localUsdc.credit(NET, PAYER, 1_000_000n), 1_000_000n);
    assert.equal(await store.localUsdc.credit(NET, PAYER, 500n), 1_000_500n);
    assert.equal(await store.localUsdc.balance(NET, PAYER), 1_000_500n);
    assert.equal(await store.localUsdc.balance("base", PAYER), 0n, "balances are per network");
  });

  test("addresses are case-insensitive", async () => {
    await store.localUsdc.credit(NET, PAYER.toUpperCase().replace("0X", "0x"), 10n);
    await store.localUsdc.credit(NET, PAYER.toLowerCase(), 5n);
    assert.equal(await store.localUsdc.balance(NET, PAYER), 15n);
  });

  test("a transfer moves the amount and reports success", async () => {
    await store.localUsdc.credit(NET, PAYER, 10_000n);
    const result = await store.localUsdc.transfer(
      { network: NET, payer: PAYER, payTo: PAY_TO, amount: 4_000n, nonce: "0xN1", txHash: "0xt1" },
      T0,
    );
    assert.equal(result, "success");
    assert.equal(await store.localUsdc.balance(NET, PAYER), 6_000n);
    assert.equal(await store.localUsdc.balance(NET, PAY_TO.toLowerCase()), 4_000n);
    assert.equal(await store.localUsdc.transferStatus("0xt1"), "success");
    assert.equal(await store.localUsdc.nonceUsed(NET, PAYER.toLowerCase(), "0xn1"), true);
  });

  test("a transfer of exactly the balance succeeds", async () => {
    await store.localUsdc.credit(NET, PAYER, 100n);
    const result = await store.localUsdc.transfer({
      network: NET,
      payer: PAYER,
      payTo: PAY_TO,
      amount: 100n,
      nonce: "0x1",
      txHash: "0xall",
    });
    assert.equal(result, "success");
    assert.equal(await store.localUsdc.balance(NET, PAYER), 0n);
  });

  test("a reused nonce is reverted and moves nothing, whatever its case", async () => {
    await store.localUsdc.credit(NET, PAYER, 10_000n);
    const base = { network: NET, payer: PAYER, payTo: PAY_TO, amount: 1_000n };
    assert.equal(await store.localUsdc.transfer({ ...base, nonce: "0xAA", txHash: "0xt1" }), "success");
    assert.equal(
      await store.localUsdc.transfer({ ...base, payer: PAYER.toLowerCase(), nonce: "0xaa", txHash: "0xt2" }),
      "reverted",
    );
    assert.equal(await store.localUsdc.balance(NET, PAYER), 9_000n);
    assert.equal(await store.localUsdc.balance(NET, PAY_TO), 1_000n);
    assert.equal(await store.localUsdc.transferStatus("0xt1"), "success");
    assert.equal(await store.localUsdc.transferStatus("0xt2"), "reverted");
  });

  test("an insufficient balance is reverted, moves nothing and does not use up the nonce", async () => {
    await store.localUsdc.credit(NET, PAYER, 999n);
    const request = { network: NET, payer: PAYER, payTo: PAY_TO, amount: 1_000n, nonce: "0xbb" };
    assert.equal(await store.localUsdc.transfer({ ...request, txHash: "0xshort" }), "reverted");
    assert.equal(await store.localUsdc.balance(NET, PAYER), 999n);
    assert.equal(await store.localUsdc.balance(NET, PAY_TO), 0n);
    assert.equal(await store.localUsdc.transferStatus("0xshort"), "reverted");
    assert.equal(await store.localUsdc.nonceUsed(NET, PAYER, "0xbb"), false);
    await store.localUsdc.credit(NET, PAYER, 1n);
    assert.equal(await store.localUsdc.transfer({ ...request, txHash: "0xretry" }), "success");
  });

  test("transferStatus of an unknown hash is undefined", async () => {
    assert.equal(await store.localUsdc.transferStatus("0xnone"), undefined);
  });

  test("concurrent transfers never overspend", async () => {
    await store.localUsdc.credit(NET, PAYER, 3_000n);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.localUsdc.transfer({
          network: NET,
          payer: PAYER,
          payTo: PAY_TO,
          amount: 1_000n,
          nonce: `0x${i}`,
          txHash: `0xc${i}`,
        }),
      ),
    );
    assert.equal(results.filter((r) => r === "success").length, 3);
    assert.equal(await store.localUsdc.balance(NET, PAYER), 0n);
    assert.equal(await store.localUsdc.balance(NET, PAY_TO), 3_000n);
  });
});

describe("UpstreamBudgetRepository", () => {
  test("concurrent bookings get distinct starts, each at least the interval after the previous", async () => {
    const now = 1_800_000_000_000;
    const starts = await Promise.all(
      Array.from({ length: 20 }, () => store.upstreamBudgets.reserve("sec", 100, now)),
    );
    starts.sort((a, b) => a - b);
    assert.equal(starts[0], now);
    for (let i = 1; i < starts.length; i++) assert.equal(starts[i]! - starts[i - 1]!, 100);
  });

  test("an idle upstream starts now again; upstreams are independent", async () => {
    const t = 1_800_000_000_000;
    assert.equal(await store.upstreamBudgets.reserve("sec", 100, t), t);
    assert.equal(await store.upstreamBudgets.reserve("fred", 500, t), t);
    assert.equal(await store.upstreamBudgets.reserve("sec", 100, t + 5000), t + 5000);
  });
});

describe("file-backed store", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-store-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("creates missing folders, keeps its data across reopen, and migrates only once", async () => {
    const file = path.join(dir, "nested", "deeper", "paycall.sqlite");
    const first = await openStore({ kind: "sqlite", file });
    await first.cache.put("fx", "k", { body: { v: 1 }, fetchedAt: T0.toISOString() });
    await first.jobs.enqueue("q", "job", { p: 1 }, {}, T0);
    await first.localUsdc.credit("base", "0xAB", 42n);
    await first.close();
    assert.ok(fs.existsSync(file));

    const familyTable = {
      "0100_demo_items": {
        up: async (db: Kysely<unknown>) => {
          await db.schema
            .createTable("demo_items")
            .addColumn("id", "text", (c) => c.primaryKey())
            .execute();
        },
      },
    };
    const second = await openStore({ kind: "sqlite", file }, familyTable);
    try {
      assert.deepEqual((await second.cache.get("fx", "k"))?.body, { v: 1 });
      assert.equal((await second.jobs.get("q", "job"))?.state, "queued");
      assert.equal(await second.localUsdc.balance("base", "0xab"), 42n);
      const migrations = await sql<{
        name: string;
      }>`select name from kysely_migration`.execute(second.db);
      assert.deepEqual(
        migrations.rows.map((r) => r.name),
        [
          "0001_foundation",
          "0002_leases",
          "0003_upstream_budgets",
          "0004_ledger_settled_by_chain",
          "0005_upstream_throttles",
          "0006_ledger_refunds",
          "0007_daily_counters",
          "0008_rate_limits",
          "0009_paid_answers",
          "0010_ledger_bigint_ids",
          "0011_job_lanes",
          "0012_upstream_slots",
          "0013_facilitator_status",
          "0014_local_batch_contract",
          "0015_batch_channels",
          "0016_batch_operation_checks",
          "0017_local_batch_withdrawals",
          "0018_batch_written_off",
          "0100_demo_items",
        ],
      );
    } finally {
      await second.close();
    }
  });

  test("a lease has one holder until it expires or is released", async () => {
    const store = await openStore({ kind: "sqlite", file: path.join(dir, "leases.sqlite") });
    try {
      assert.equal(await store.leases.acquire("collector", "node-a", 10_000, T0), true);
      assert.equal(await store.leases.acquire("collector", "node-b", 10_000, T0), false);
      assert.equal(
        await store.leases.acquire("collector", "node-a", 10_000, new Date(T0.getTime() + 5000)),
        true,
      );
      assert.equal(await store.leases.holder("collector", T0), "node-a");
      const later = new Date(T0.getTime() + 16_000);
      assert.equal(await store.leases.acquire("collector", "node-b", 10_000, later), true);
      await store.leases.release("collector", "node-b");
      assert.equal(await store.leases.holder("collector", later), undefined);
    } finally {
      await store.close();
    }
  });

  test("two stores opening a fresh file at the same moment both succeed", async () => {
    const file = path.join(dir, "fresh.sqlite");
    const opened = await Promise.allSettled([
      openStore({ kind: "sqlite", file }),
      openStore({ kind: "sqlite", file }),
    ]);
    for (const result of opened) if (result.status === "fulfilled") await result.value.close();
    assert.deepEqual(
      opened.map((r) => (r.status === "fulfilled" ? "ok" : String(r.reason))),
      ["ok", "ok"],
    );
  });

  test("two stores open on one migrated file at once both work", async () => {
    const file = path.join(dir, "paycall.sqlite");
    await (await openStore({ kind: "sqlite", file })).close();
    const [a, b] = await Promise.all([
      openStore({ kind: "sqlite", file }),
      openStore({ kind: "sqlite", file }),
    ]);
    try {
      await a.cache.put("fx", "from-a", { body: 1, fetchedAt: T0.toISOString() });
      assert.equal((await b.cache.get("fx", "from-a"))?.body, 1);
      assert.equal(await a.nonces.claim("shared", "sku"), true);
      assert.equal(await b.nonces.claim("shared", "sku"), false);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
