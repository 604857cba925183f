// Several stateless nodes on one PostgreSQL: two API nodes and a worker as real processes.
// Runs in the PostgreSQL test run (npm run test:postgres); skipped on SQLite.
import assert from "node:assert/strict";
import os from "node:os";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { loadConfig } from "../src/config.ts";
import { ECB_FX_WARMER } from "../src/products/ecb/warmer.ts";
import { openServiceStore } from "../src/service.ts";
import type { Store } from "../src/store/store.ts";
import { creditWallet } from "../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";
import { startLoopbackUpstream } from "./family-harness.ts";
import { decodeBase64Json, newBuyer, signedPaymentHeader } from "./harness.ts";
import { eventually, NodeFleet, type NodeProcess } from "./node-process.ts";
import { TEST_DATABASE_URL, type TestDatabase, testDatabase } from "./test-store.ts";

const skip = TEST_DATABASE_URL ? false : "needs PostgreSQL (npm run test:postgres)";
const FX = "/v1/macro/ecb/fx?pair=USD";

interface Cluster {
  env: Record<string, string>;
  store: Store;
  fleet: NodeFleet;
  database: TestDatabase;
}

async function openCluster(extra: Record<string, string> = {}): Promise<Cluster> {
  const database = testDatabase();
  const env = {
    ...database.env,
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    PUBLIC_URL: "http://paycall.cluster.test",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    WORKER_POLL_MS: "100",
    SCHEDULE_EVERY_MS: "1000",
    // Short authorisations, so rows a killed node left pending are decided by the chain within the test.
    FACILITATOR_TIMEOUT_MS: "5000",
    MAX_TIMEOUT_SECONDS: "30",
    SAMPLES_PER_HOUR: "3",
    LOG_LEVEL: "warn",
    ...extra,
  };
  const store = await openServiceStore(loadConfig({ ...env, DATA_DIR: os.tmpdir() }));
  return { env, store, fleet: new NodeFleet("paycall-node-"), database };
}

function startNode(cluster: Cluster, extra: Record<string, string>): Promise<NodeProcess> {
  return cluster.fleet.start({ ...cluster.env, LOG_LEVEL: "info", ...extra });
}

async function closeCluster(cluster: Cluster): Promise<void> {
  await cluster.fleet.stopAll();
  await cluster.store.close();
  await cluster.database.drop();
}

function paid(url: string, header: string): Promise<Response> {
  return fetch(url, { headers: { "payment-signature": header } });
}

describe("two API nodes and one worker on one PostgreSQL", { skip }, () => {
  let cluster: Cluster;
  let a: NodeProcess;
  let b: NodeProcess;
  const buyer = newBuyer();

  before(async () => {
    cluster = await openCluster();
    [a, b] = await Promise.all([
      startNode(cluster, { ROLE: "serve" }),
      startNode(cluster, { ROLE: "serve" }),
      startNode(cluster, { ROLE: "worker" }),
    ]);
    await creditWallet(cluster.store, NETWORKS.base, buyer.address, "100");
  });
  after(() => closeCluster(cluster));

  test("a miss on node A queues one job, the worker fills the cache, node B serves it", async () => {
    // Signed first, sent together. The worker may still fill the cache before the last of them arrives on a
    // loaded machine: that one is then an honest paid answer. What must hold either way: at least one miss, each
    // miss uncharged, one queued job.
    const nodes = [a, b, a];
    const headers = await Promise.all(nodes.map((node) => signedPaymentHeader(buyer, node.url + FX)));
    const answers = await Promise.all(nodes.map((node, i) => paid(node.url + FX, headers[i] as string)));
    let missed = 0;
    for (const answer of answers) {
      const body = (await answer.json()) as { charged?: boolean; pair?: string };
      if (answer.status === 404) {
        missed++;
        assert.equal(body.charged, false);
      } else {
        assert.equal(answer.status, 200);
        assert.equal(body.pair, "EURUSD");
      }
    }
    assert.ok(missed >= 1, "the first requests find the rate missing");
    const jobs = await cluster.store.db
      .selectFrom("jobs")
      .selectAll()
      .where("queue", "=", "warmer")
      .execute();
    assert.deepEqual(
      jobs.map((j) => j.key),
      [ECB_FX_WARMER],
    );
    await eventually(
      async () =>
        (await cluster.store.jobs.get("warmer", ECB_FX_WARMER))?.state === "done" ? true : undefined,
      15_000,
      "the worker to run the fetch",
    );
    const answer = await paid(b.url + FX, await signedPaymentHeader(buyer, b.url + FX));
    assert.equal(answer.status, 200);
    assert.equal(((await answer.json()) as { pair: string }).pair, "EURUSD");
  });

  test("a payment used on node A is refused on node B", async () => {
    const header = await signedPaymentHeader(buyer, a.url + FX);
    assert.equal((await paid(a.url + FX, header)).status, 200);
    const replay = await paid(b.url + FX, header);
    assert.equal(replay.status, 402);
    assert.equal(decodeBase64Json(replay.headers.get("payment-required")).error, "payment_already_used");
  });

  test("the free-sample allowance is counted across nodes", async () => {
    const statuses = [];
    for (const node of [a, b, a, b]) statuses.push((await fetch(`${node.url}${FX}&sample=1`)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  test("kill -9 of node A under load: every settled payment is in the ledger, none left unresolved", async () => {
    // A steady stream to both nodes; node A dies once it has answered a few, with others at every stage,
    // and the stream goes on a little after.
    let answeredByA = 0;
    let killedAt = -1;
    const results: Array<Promise<{ node: "a" | "b"; status: number; receipt: string | null }>> = [];
    let inFlight = 0;
    for (let i = 0; i < 400 && (killedAt < 0 || i < killedAt + 20); i++) {
      while (inFlight >= 6) await new Promise((resolve) => setTimeout(resolve, 5));
      const node = i % 2 === 0 ? "a" : "b";
      const header = await signedPaymentHeader(buyer, b.url + FX);
      inFlight++;
      results.push(
        paid((node === "a" ? a : b).url + FX, header)
          .finally(() => inFlight--)
          .then(
            (r) => {
              if (node === "a" && r.status === 200) answeredByA++;
              return { node, status: r.status, receipt: r.headers.get("payment-response") };
            },
            () => ({ node, status: 0, receipt: null }),
          ),
      );
      if (killedAt < 0 && answeredByA >= 3) {
        a.child.kill("SIGKILL");
        killedAt = i;
      }
    }
    const outcomes = await Promise.all(results);
    assert.ok(killedAt > 0, "node A was killed under load");
    assert.ok(
      outcomes.some((o) => o.node === "a" && o.status === 0),
      "requests to node A were cut off",
    );
    assert.ok(
      outcomes.filter((o) => o.node === "b").every((o) => o.status === 200),
      "node B kept answering",
    );

    // The worker reconciles rows the killed node left pending once they are older than the settle timeout.
    const open = async () =>
      (await cluster.store.ledger.list({ state: "pending" })).length +
      (await cluster.store.ledger.list({ state: "unknown" })).length;
    await eventually(
      async () => ((await open()) === 0 ? true : undefined),
      90_000,
      "ledger rows to be reconciled",
    );
    const ledger = await cluster.store.ledger.list({ limit: 1000 });
    const settledTx = new Set(ledger.filter((r) => r.state === "settled").map((r) => r.transaction));
    for (const o of outcomes.filter((o) => o.status === 200)) {
      assert.ok(
        settledTx.has(decodeBase64Json(o.receipt).transaction as string),
        "a delivered answer is in the ledger",
      );
    }
    const moved = await cluster.store.db
      .selectFrom("local_usdc_transfers")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "success")
      .executeTakeFirstOrThrow();
    const settled = ledger.filter((r) => r.state === "settled").length;
    assert.equal(settled, Number(moved.n), "every transfer that moved money has a settled ledger row");
  });
});

describe("jobs survive a killed worker", { skip }, () => {
  test("kill -9 of the worker running a job: another worker runs it once the lease lapses", async () => {
    const cluster = await openCluster({ JOB_LEASE_MS: "2000" });
    const hanging = await startLoopbackUpstream(() => new Promise(() => {}));
    try {
      const first = await startNode(cluster, {
        ROLE: "worker",
        UPSTREAMS: "live",
        ECB_BASE_URL: hanging.baseUrl,
      });
      await cluster.store.jobs.enqueue("warmer", ECB_FX_WARMER, { warmer: ECB_FX_WARMER });
      await eventually(
        async () => (hanging.requests.length > 0 ? true : undefined),
        15_000,
        "the job to start",
      );
      first.child.kill("SIGKILL");
      await first.exited;
      assert.equal((await cluster.store.jobs.get("warmer", ECB_FX_WARMER))?.state, "running");

      await startNode(cluster, { ROLE: "worker" });
      const job = await eventually(
        async () => {
          const row = await cluster.store.jobs.get("warmer", ECB_FX_WARMER);
          return row?.state === "done" ? row : undefined;
        },
        20_000,
        "the second worker to run the job",
      );
      // The killed worker's attempt counts; a starved second worker may lose its own 2 s lease and run it again.
      assert.ok(job.attempts >= 2, `attempts: ${job.attempts}`);
      assert.ok(await cluster.store.cache.get("ecb", "USD"));
    } finally {
      await hanging.close();
      await closeCluster(cluster);
    }
  });
});

describe("migration race", { skip }, () => {
  test("five processes starting at once on an empty database all come up", async () => {
    const cluster = await openCluster();
    // openCluster migrated the schema; start from an empty one instead.
    await cluster.store.close();
    await cluster.database.drop();
    try {
      const starts = await Promise.allSettled(
        Array.from({ length: 5 }, () => startNode(cluster, { ROLE: "serve" })),
      );
      assert.deepEqual(
        starts.map((s) => (s.status === "fulfilled" ? "up" : String(s.reason).slice(0, 300))),
        ["up", "up", "up", "up", "up"],
      );
      cluster.store = await openServiceStore(loadConfig({ ...cluster.env, DATA_DIR: os.tmpdir() }));
      const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(
        cluster.store.db,
      );
      const names = await sql<{ name: string }>`select name from kysely_migration`.execute(cluster.store.db);
      assert.equal(Number(applied.rows[0]?.n), new Set(names.rows.map((r) => r.name)).size);
    } finally {
      await closeCluster(cluster);
    }
  });
});
