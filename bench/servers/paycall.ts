// Bench child: the real paycall service (local facilitator, replayed upstreams, no worker, silent logs).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { startService } from "../../src/service.ts";
import { announce, eventLoopProbe, exitWith } from "./common.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-bench-"));
/**
 * Settings a bench may pass through: another facilitator, its pay-to address, a PostgreSQL store, and the
 * paid-call in-flight limit (a setting newer trees have; older ones ignore it).
 */
const PASSED = [
  "PAID_CALLS_MAX_IN_FLIGHT",
  "FACILITATOR_URL",
  "PAY_TO_EVM",
  "PAY_TO_SOLANA",
  "SOLANA_RPC_URL",
  "NETWORKS",
  "DATABASE_URL",
  "DATABASE_SCHEMA",
  "RELEASE_MEMORY",
];
const passed = Object.fromEntries(
  PASSED.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
);
const config = loadConfig({
  ...passed,
  PORT: process.env.BENCH_PAYCALL_PORT ?? "0",
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
  UPSTREAMS: "replay",
  LOG_LEVEL: "silent",
  RUN_WARMERS: "false",
  // One client sends millions of unpaid requests a minute here: counted like any client's, never refused.
  RATE_LIMIT_PER_MIN: "1000000000",
});
// As `npm start` runs it: what start leaves behind is handed back unless RELEASE_MEMORY=false.
const service = await startService(config, {
  worker: false,
  log: createLogger("silent"),
  releaseMemory: config.releaseMemory,
});
exitWith(async () => {
  await service.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
await service.paymentsReady;
// BENCH_PAYCALL_WARM=1: fill the ECB cache from the recordings first, as the daily warmer would in production
// (the route's pair check then reads the cached index instead of missing).
let warmed: Record<string, unknown> | undefined;
if (process.env.BENCH_PAYCALL_WARM === "1") warmed = await service.worker.runWarmer("ecb.fx");
announce(service.url, {
  payTo: service.config.payTo.evm,
  warmed: warmed ?? null,
  // Set when started with bench/servers/count-statements.ts: where it writes its counts.
  statementsFile: process.env.BENCH_STATEMENTS_FILE ?? null,
  eventLoopProbe: await eventLoopProbe(),
});
