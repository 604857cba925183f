// PostgreSQL restarted under paid load, with two nodes as real processes on one database: meanwhile buyers get a
// clean 503 (nothing charged), each node reconnects by itself, and afterwards every settled payment is delivered
// and recorded, with no claim or ledger row left undecided.
//
// The database restarted is a private cluster this test starts (the machine's shared server is never stopped).
// It runs once, in the PostgreSQL run: the store under test is PostgreSQL, and the SQLite run has nothing to add
// but another cluster and three processes on a busy machine.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { ECB_FX_WARMER } from "../src/products/ecb/warmer.ts";
import { openServiceStore } from "../src/service.ts";
import type { Store } from "../src/store/store.ts";
import { eventually, type NodeProcess, startNodeProcess } from "./node-process.ts";
import { type PaidLoad, type PaidResult, paidLoad, presignedHeaders } from "./paid-load.ts";
import { type PrivatePostgres, postgresBinaries, startPrivatePostgres } from "./private-postgres.ts";
import { type StubEvmRpc, startStubEvmRpc } from "./stub-evm-rpc.ts";
import { type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { settleOnTheStubChain } from "./stub-settlement.ts";
import { TEST_DATABASE_URL } from "./test-store.ts";

const FX = "/v1/macro/ecb/fx?pair=USD";
const binaries = postgresBinaries();
const skip = !TEST_DATABASE_URL
  ? "runs in the PostgreSQL run (npm run test:postgres), on a private cluster of its own"
  : !binaries
    ? "no PostgreSQL binaries (initdb, pg_ctl) on this machine to start a private cluster"
    : false;
if (skip) console.log(`postgres-restart.test.ts skipped: ${skip}`);

let pg: PrivatePostgres;
let stub: StubFacilitator;
let rpc: StubEvmRpc;
let store: Store;
let nodes: NodeProcess[] = [];
const dirs: string[] = [];

/** /ready's answer; status 0 when none came within 5 s (a starved node is asked again). */
async function ready(node: NodeProcess): Promise<{ status: number; problems: string[] }> {
  const response = await fetch(`${node.url}/ready`, { signal: AbortSignal.timeout(5000) }).catch(
    () => undefined,
  );
  if (!response) return { status: 0, problems: [] };
  return { status: response.status, problems: ((await response.json()) as { problems: string[] }).problems };
}

before(async () => {
  if (skip || !binaries) return;
  pg = await startPrivatePostgres(binaries);
  stub = await startStubFacilitator();
  rpc = await startStubEvmRpc();
  // Settlements take a second, so the database goes away under some paid calls between settle and record.
  settleOnTheStubChain(stub, rpc, 1000);
  const env = {
    DATABASE_URL: pg.url,
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    PUBLIC_URL: "http://paycall.restart.test",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    FACILITATOR_URL: stub.url,
    BASE_RPC_URL: rpc.url,
    FACILITATOR_TIMEOUT_MS: "5000",
    MAX_TIMEOUT_SECONDS: "90",
    WORKER_POLL_MS: "100",
    SCHEDULE_EVERY_MS: "1000",
    RATE_LIMIT_PER_MIN: "100000",
    RATE_LIMIT_EXPENSIVE_PER_MIN: "100000",
    LOG_LEVEL: "info",
  };
  store = await openServiceStore(loadConfig({ ...env, DATA_DIR: os.tmpdir() }));
  const start = (role: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-restart-"));
    dirs.push(dir);
    return startNodeProcess({ ...env, DATA_DIR: dir, ROLE: role }, 90_000);
  };
  nodes = await Promise.all([start("all"), start("serve")]);
  for (const node of nodes)
    await eventually(async () => ((await ready(node)).status === 200 ? true : undefined), 60_000, "/ready");
  await store.jobs.enqueue("warmer", ECB_FX_WARMER, { warmer: ECB_FX_WARMER });
  await eventually(
    async () => ((await store.jobs.get("warmer", ECB_FX_WARMER))?.state === "done" ? true : undefined),
    20_000,
    "the ECB cache to be filled",
  );
});

after(async () => {
  if (skip) return;
  await Promise.all(nodes.map((n) => n.stop("SIGKILL")));
  await store?.close();
  await stub?.close();
  await rpc?.close();
  pg?.destroy();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test("PostgreSQL restarted under paid load on two nodes", { skip }, async () => {
  const [a, b] = nodes as [NodeProcess, NodeProcess];
  const headers = await presignedHeaders(`${a.url}${FX}`, 1000);
  const load: PaidLoad = paidLoad([a.url + FX, b.url + FX], headers, { concurrency: 6, paceMs: 50 });
  await eventually(async () => (load.results.some((r) => r.status === 200) ? true : undefined));

  // The database goes away while a settlement is under way: its answer (1 s later) finds the store gone.
  await new Promise<void>((resolve) => {
    const settleOnTheChain = stub.onSettle;
    stub.onSettle = (body) => {
      settleOnTheChain?.(body);
      stub.onSettle = settleOnTheChain;
      resolve();
    };
  });
  pg.stop();
  const stoppedAt = Date.now();
  // Each node's /ready turns 503 and says why, within seconds (the bounds are generous: a loaded CI machine).
  for (const node of nodes) {
    const down = await eventually(
      async () => {
        const r = await ready(node);
        return r.status === 503 ? r : undefined;
      },
      20_000,
      "/ready to report the store down",
    );
    assert.ok(
      down.problems.some((p) => p.startsWith("store:")),
      `names the store: ${down.problems.join("; ")}`,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 3000 - (Date.now() - stoppedAt))));
  const downResults = load.results.length;

  pg.start();
  const startedAt = Date.now();
  // Each node reconnects by itself: /ready and a paid call answer again soon after the database's return.
  for (const node of nodes) {
    await eventually(
      async () => ((await ready(node)).status === 200 ? true : undefined),
      30_000 - (Date.now() - startedAt),
      "the node to reconnect",
    );
  }
  await eventually(
    async () =>
      load.results.some((r, i) => i >= downResults && r.status === 200 && r.at > startedAt)
        ? true
        : undefined,
    30_000 - (Date.now() - startedAt),
    "paid calls to be delivered again",
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const results = await load.stop();

  for (const node of nodes)
    assert.equal(node.child.exitCode, null, `a node exited:\n${node.logs.join("\n")}`);
  assertCleanAnswers(results);
  const refused = results.filter((r) => r.status === 503);
  assert.ok(refused.length > 0, "some paid calls met the database down");

  // Afterwards: settled = delivered, and nothing undecided.
  await eventually(
    async () => ((await undecidedRows()) === 0 ? true : undefined),
    15_000,
    "no pending or unknown ledger row",
  );
  const ledger = await store.ledger.list({ limit: 5000 });
  const settled = ledger.filter((r) => r.state === "settled");
  const delivered = results.filter((r) => r.status === 200);
  assert.equal(settled.length, stub.calls.settle, "every settlement the facilitator made is on the ledger");
  assert.equal(delivered.length, settled.length, "every settled payment was delivered, and only those");
  assert.ok(
    settled.every((r) => r.delivered === 1),
    "every settled row is marked delivered",
  );
  const settledTx = new Set(settled.map((r) => r.transaction));
  for (const r of delivered)
    assert.ok(settledTx.has(r.transaction ?? ""), `delivered ${r.transaction} is settled`);
  const logs = nodes.flatMap((n) => n.logs).join("\n");
  assert.match(logs, /LEDGER WRITE DEFERRED/, "the database went away under a settlement's record");
  assert.match(logs, /deferred store write made/);
  const claims = await store.db.selectFrom("nonce_claims").select("nonce_key").execute();
  const decided = new Set(ledger.filter((r) => r.state !== "pending").map((r) => r.nonce_key));
  assert.deepEqual(
    claims.filter((c) => !decided.has(c.nonce_key)),
    [],
    "no nonce claim without a decided ledger row",
  );
});

/** Every answer is a delivery or a clean refusal: never a 500, a hang or data without a settlement. */
function assertCleanAnswers(results: PaidResult[]): void {
  for (const r of results) {
    if (r.status === 200) {
      assert.ok(r.transaction, "a 200 carries its PAYMENT-RESPONSE");
      continue;
    }
    assert.equal(r.status, 503, `only 200 or 503: ${JSON.stringify(r)}`);
    assert.equal(r.error, "store_unavailable", JSON.stringify(r));
    assert.equal(r.charged, false);
    assert.ok(r.retryAfter, "a 503 says when to retry");
    assert.equal(r.paymentResponse, false, "a refusal carries no PAYMENT-RESPONSE");
  }
}

async function undecidedRows(): Promise<number> {
  const open = await store.db
    .selectFrom("ledger")
    .select("id")
    .where("state", "in", ["pending", "unknown"])
    .execute();
  return open.length;
}
