// A family's boundary (docs/architecture.md): what a family is handed reaches neither the payment side nor the
// core's tables. Each `@ts-expect-error` line must fail to compile (`npm run typecheck` fails if one compiles),
// and at run time the handed objects hold no more than their types say. A family's own settings (keys,
// credentials) are parsed by its factory at start and handed to its code from there: no environment per call.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { familyContext, type ServiceContext } from "../src/catalog/family-context.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { UpstreamRegistry } from "../src/upstream/registry.ts";
import { openTestStore } from "./test-store.ts";

const store = await openTestStore();
after(() => store.close());
const config = loadConfig({
  LOG_LEVEL: "silent",
  RECEIPT_SIGNING_KEY: `0x${"11".repeat(32)}`,
  ADMIN_TOKEN: "a-long-enough-admin-token-for-the-test",
  LOCAL_SOLANA_FEE_PAYER_KEY: "a-fee-payer-key",
  NVD_API_KEY: "family-key",
});
const service: ServiceContext = {
  config,
  store,
  upstreams: new UpstreamRegistry(config, undefined),
  log: createLogger("silent"),
};

test("a family's store has its cache, queues, leases, warmer runs and own tables, not the payment records", () => {
  const family = familyContext(service).store;
  // @ts-expect-error the ledger is the paid path's
  assert.equal(family.ledger, undefined);
  // @ts-expect-error nonce claims are the paid path's
  assert.equal(family.nonces, undefined);
  // @ts-expect-error refunds are the operator's
  assert.equal(family.refunds, undefined);
  // @ts-expect-error sales are recorded by the paid path (SettledRecords)
  assert.equal(family.sales, undefined);
  // @ts-expect-error the raw database of the whole service
  assert.equal(family.db, undefined);
  // @ts-expect-error claiming jobs is the worker's
  assert.equal(family.jobs.claim, store.jobs.claim);
  assert.deepEqual(Object.keys(family).sort(), [
    "cache",
    "jobs",
    "kind",
    "leases",
    "tables",
    "upstreamBudgets",
    "warmerRuns",
  ]);
});

test("a family's settings are the service facts it reads: not the payment settings, not the environment", () => {
  const family = familyContext(service).config;
  // @ts-expect-error where the money goes is the paid path's
  assert.equal(family.payTo, undefined);
  // @ts-expect-error the receipt key is the paid path's
  assert.equal(family.receiptSigningKey, undefined);
  // @ts-expect-error the database settings are the store's
  assert.equal(family.database, undefined);
  // @ts-expect-error the environment is read by a family's factory, once at start, not per call
  assert.equal(family.env, undefined);
  assert.deepEqual(Object.keys(family).sort(), [
    "contact",
    "dataDir",
    "operatorName",
    "publicUrl",
    "upstreams",
  ]);
  const handed = JSON.stringify(family);
  assert.equal(
    handed.includes("family-key"),
    false,
    "a family's own key is not in what its handlers are handed",
  );
  assert.equal(handed.includes("a-fee-payer-key"), false, "nor the local facilitator's fee payer");
  assert.equal(family.publicUrl, config.publicUrl);
  config.publicUrl = "http://localhost:9";
  assert.equal(family.publicUrl, "http://localhost:9", "read live: known once the listener has its port");
});

test("a family's tables are typed by the family alone", async () => {
  const tables = familyContext(service).store.tables.of<{ family_rows: { id: string } }>();
  // @ts-expect-error the core's ledger is not among a family's tables
  assert.ok(tables.selectFrom("ledger"));
  await assert.rejects(tables.selectFrom("family_rows").selectAll().execute(), /family_rows/);
});
