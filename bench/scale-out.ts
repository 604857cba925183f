// Cached paid-path throughput on several nodes: one node on SQLite, one node on PostgreSQL, and two nodes on
// one PostgreSQL, measured in the same run with the same load. Every request is a full paid call (claim the
// nonce, verify, answer from cache, settle, ledger row) against a loopback facilitator that answers at once.
// The servers are real `node src/main.ts serve` processes. Run: node bench/scale-out.ts (see bench/README.md).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { newBuyer, signedPaymentHeader } from "../test/harness.ts";
import { eventually, type NodeProcess, startNodeProcess } from "../test/node-process.ts";
import { startStubFacilitator } from "../test/stub-facilitator.ts";

const ROUTE = "/v1/macro/ecb/fx?pair=USD";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ADMIN_URL = process.env.PAYCALL_PG_ADMIN_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh payment header per request: the signed one with a new nonce (the loopback facilitator accepts it). */
function headerFactory(template: string): () => string {
  const payload = JSON.parse(Buffer.from(template, "base64").toString("utf8"));
  return () => {
    payload.payload.authorization.nonce = `0x${randomBytes(32).toString("hex")}`;
    return Buffer.from(JSON.stringify(payload)).toString("base64");
  };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

interface Setup {
  name: string;
  nodes: NodeProcess[];
}

async function load(
  nodes: NodeProcess[],
  nextHeader: () => string,
): Promise<{ rps: number; errors: number; p99: number }> {
  const runs = nodes.map(
    (node) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        autocannon(
          {
            url: node.url + ROUTE,
            connections: Math.max(1, Math.round(CONNECTIONS / nodes.length)),
            duration: SECONDS,
            requests: [
              {
                setupRequest: (request) => ({
                  ...request,
                  headers: { ...request.headers, "payment-signature": nextHeader() },
                }),
              },
            ],
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      }),
  );
  const results = await Promise.all(runs);
  return {
    rps: results.reduce((sum, r) => sum + r["2xx"] / SECONDS, 0),
    errors: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  };
}

async function main() {
  const stub = await startStubFacilitator();
  const database = `paycall_bench_${process.pid}`;
  await admin(`create database ${database}`);
  const pgUrl = new URL(ADMIN_URL);
  pgUrl.pathname = `/${database}`;
  const dirs: string[] = [];
  const base = {
    FACILITATOR_URL: stub.url,
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    PUBLIC_URL: "http://paycall.bench.test",
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    WORKER_POLL_MS: "50",
  };
  const start = (env: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-"));
    dirs.push(dir);
    return startNodeProcess({ ...base, DATA_DIR: dir, ...env });
  };
  const setups: Setup[] = [];
  try {
    const sqliteNode = await start({});
    const pgEnv = { DATABASE_URL: pgUrl.toString(), DATABASE_POOL_SIZE: "10" };
    const pgNodes = [await start(pgEnv), await start({ ...pgEnv, ROLE: "serve" })];
    const buyer = newBuyer();
    const template = await signedPaymentHeader(buyer, sqliteNode.url + ROUTE);
    const nextHeader = headerFactory(template);
    // A first paid miss queues the fetch; the node's worker fills the cache (PostgreSQL nodes share one).
    for (const node of [sqliteNode, pgNodes[0]!]) {
      await eventually(
        async () => {
          const r = await fetch(node.url + ROUTE, { headers: { "payment-signature": nextHeader() } });
          return r.status === 200 ? true : undefined;
        },
        20_000,
        "the cache",
      );
    }
    setups.push(
      { name: "1 node, SQLite", nodes: [sqliteNode] },
      { name: "1 node, PostgreSQL", nodes: [pgNodes[0]!] },
      { name: "2 nodes, PostgreSQL", nodes: pgNodes },
    );
    const results = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? setups : [...setups].reverse();
      for (const setup of order) {
        const r = await load(setup.nodes, nextHeader);
        results.set(setup.name, [...(results.get(setup.name) ?? []), r.rps]);
        process.stdout.write(
          `round ${round + 1} ${setup.name.padEnd(20)} ${r.rps.toFixed(0).padStart(6)} paid req/s  p99 ${r.p99} ms  non-2xx/errors ${r.errors}\n`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const m = Object.fromEntries([...results].map(([k, v]) => [k, median(v)]));
    process.stdout.write(
      `\nmedian paid req/s: ${Object.entries(m)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(", ")}\n` +
        `PostgreSQL / SQLite (1 node): ${(m["1 node, PostgreSQL"]! / m["1 node, SQLite"]!).toFixed(2)}x\n` +
        `2 nodes / 1 node (PostgreSQL): ${(m["2 nodes, PostgreSQL"]! / m["1 node, PostgreSQL"]!).toFixed(2)}x ` +
        `(${os.cpus().length} CPUs shared by the nodes, PostgreSQL and the load generator)\n`,
    );
  } finally {
    for (const setup of setups) for (const node of setup.nodes) await node.stop("SIGKILL");
    await stub.close();
    await admin(`drop database if exists ${database} with (force)`);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
