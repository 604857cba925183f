// What the fault scenarios share: paycall as real processes (`node src/main.ts serve`) on a store the scenario
// owns, paid through a stand-in facilitator that settles on a stand-in chain, with the ECB cache filled so the
// paid route answers; and the row a scenario's paid calls make.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.ts";
import { ECB_FX_WARMER } from "../../src/products/ecb/warmer.ts";
import { openServiceStore } from "../../src/service.ts";
import type { Store } from "../../src/store/store.ts";
import { eventually, type NodeProcess, startNodeProcess } from "../../test/node-process.ts";
import { type PaidResult, paidLoad, presignedHeaders } from "../../test/paid-load.ts";
import { type StubEvmRpc, startStubEvmRpc } from "../../test/stub-evm-rpc.ts";
import { type StubFacilitator, startStubFacilitator } from "../../test/stub-facilitator.ts";
import { settleOnTheStubChain } from "../../test/stub-settlement.ts";
import type { FaultRow } from "./row.ts";

export const FX = "/v1/macro/ecb/fx?pair=USD";

export interface FaultCluster {
  nodes: NodeProcess[];
  /** The paid route on each node. */
  urls: string[];
  stub: StubFacilitator;
  store: Store;
  stop: () => Promise<void>;
}

/** Starts one node per role on `database` (a DATABASE_URL), waits for /ready and fills the ECB cache. */
export async function startFaultCluster(
  database: string,
  roles: string[],
  options: { dataDir?: string; settleDelayMs?: number } = {},
): Promise<FaultCluster> {
  const stub = await startStubFacilitator();
  const rpc: StubEvmRpc = await startStubEvmRpc();
  settleOnTheStubChain(stub, rpc, options.settleDelayMs ?? 0);
  const env = {
    DATABASE_URL: database,
    UPSTREAMS: "replay",
    RUN_WARMERS: "false",
    PUBLIC_URL: "http://paycall.faults.test",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    FACILITATOR_URL: stub.url,
    BASE_RPC_URL: rpc.url,
    FACILITATOR_TIMEOUT_MS: "5000",
    MAX_TIMEOUT_SECONDS: "120",
    WORKER_POLL_MS: "100",
    SCHEDULE_EVERY_MS: "1000",
    RATE_LIMIT_PER_MIN: "1000000",
    RATE_LIMIT_EXPENSIVE_PER_MIN: "1000000",
    LOG_LEVEL: "info",
  };
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = fs.mkdtempSync(path.join(options.dataDir ?? os.tmpdir(), "paycall-fault-"));
    dirs.push(dir);
    return dir;
  };
  const store = await openServiceStore(loadConfig({ ...env, DATA_DIR: dataDir() }));
  const nodes: NodeProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop("SIGKILL")));
    await store.close();
    await stub.close();
    await rpc.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const role of roles)
      nodes.push(await startNodeProcess({ ...env, DATA_DIR: dataDir(), ROLE: role }, 90_000));
    for (const node of nodes)
      await eventually(
        async () => ((await fetch(`${node.url}/ready`)).ok ? true : undefined),
        60_000,
        "/ready",
      );
    await store.jobs.enqueue("warmer", ECB_FX_WARMER, { warmer: ECB_FX_WARMER });
    await eventually(
      async () => ((await store.jobs.get("warmer", ECB_FX_WARMER))?.state === "done" ? true : undefined),
      60_000,
      "the ECB cache to be filled",
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, urls: nodes.map((n) => n.url + FX), stub, store, stop };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long each scenario's fault lasts. */
export const FAULT_MS = 5000;

/** A row with no paid calls: a scenario skipped or failed, and why. */
export function emptyRow(fault: string, notes: string): FaultRow {
  return {
    fault,
    attempted: 0,
    delivered: 0,
    charged: 0,
    refused: 0,
    worstLatencyMs: 0,
    recoveryMs: null,
    notes,
  };
}

/**
 * Paid calls to every node (4 lanes, each at most every 50 ms): 3 s of them, `inject` the fault, FAULT_MS, `end`
 * it, 5 s more; then the row.
 */
export async function underPaidLoad(
  fault: string,
  cluster: FaultCluster,
  inject: () => void,
  end: () => void,
): Promise<FaultRow> {
  const headers = await presignedHeaders(cluster.urls[0] as string, 1500);
  const load = paidLoad(cluster.urls, headers, { concurrency: 4, paceMs: 50 });
  await sleep(3000);
  inject();
  await sleep(FAULT_MS);
  end();
  const endedAt = Date.now();
  await sleep(5000);
  return faultRow(fault, cluster, await load.stop(), endedAt);
}

/**
 * The row of a fault's paid calls. Recovery: from the fault's end until every node delivered a paid call again.
 * The notes name any answer that was neither a delivery nor a clean 503, and whether the ledger agrees.
 */
export async function faultRow(
  fault: string,
  cluster: FaultCluster,
  results: PaidResult[],
  faultEndedAt: number,
): Promise<FaultRow> {
  const delivered = results.filter((r) => r.status === 200);
  const refused = results.filter(
    (r) => r.status === 503 && r.error === "store_unavailable" && r.charged === false,
  );
  const odd = results.filter((r) => r.status !== 200 && !refused.includes(r));
  const backAt = cluster.urls.map(
    (url) => results.find((r) => r.url === url && r.status === 200 && r.at > faultEndedAt)?.at,
  );
  const recovered = backAt.every((at) => at !== undefined);
  const notes: string[] = [];
  if (odd.length) {
    const kinds = new Map<string, number>();
    for (const r of odd)
      kinds.set(
        `${r.status} ${r.error ?? ""}`.trim(),
        (kinds.get(`${r.status} ${r.error ?? ""}`.trim()) ?? 0) + 1,
      );
    notes.push(`other answers: ${[...kinds].map(([k, n]) => `${n} × ${k}`).join(", ")}`);
  }
  const ledger = await ledgerCheck(cluster.store);
  if (ledger.open) notes.push(`${ledger.open} ledger rows still open`);
  if (ledger.settled !== cluster.stub.calls.settle || ledger.undelivered)
    notes.push(
      `ledger: ${ledger.settled} settled (${ledger.undelivered} undelivered) for ${cluster.stub.calls.settle} settlements`,
    );
  return {
    fault,
    attempted: results.length,
    delivered: delivered.length,
    charged: cluster.stub.calls.settle,
    refused: refused.length,
    worstLatencyMs: Math.round(Math.max(0, ...results.map((r) => r.ms))),
    recoveryMs: recovered ? Math.max(...(backAt as number[])) - faultEndedAt : null,
    ...(notes.length ? { notes: notes.join("; ") } : {}),
  };
}

/** Waits (up to 20 s) for no pending or unknown ledger row, then counts the ledger. */
async function ledgerCheck(store: Store): Promise<{ settled: number; undelivered: number; open: number }> {
  const count = async () => {
    const rows = await store.ledger.list({ limit: 100_000 });
    const settled = rows.filter((r) => r.state === "settled");
    return {
      settled: settled.length,
      undelivered: settled.filter((r) => r.delivered !== 1).length,
      open: rows.filter((r) => r.state === "pending" || r.state === "unknown").length,
    };
  };
  const deadline = Date.now() + 20_000;
  let figures = await count();
  while (figures.open > 0 && Date.now() < deadline) {
    await sleep(250);
    figures = await count();
  }
  return figures;
}
