// Benchmark of the paid path: server CPU per paid call (user and kernel, from /proc), with a loopback
// facilitator in another process (bench/servers/facilitator.ts accepts every payment, so the figure is the
// seller's own work). paycall on SQLite and on PostgreSQL, and the reference @x402/hono middleware with the
// SDK's default HTTP facilitator client doing the same verify + settle, given paycall's extensions and 402 body
// (so that its buyers echo the same PAYMENT-SIGNATURE; the table shows its size), in the same run. Two workloads
// on each server (bench/servers/paid-load.ts): "fetch", what @x402/fetch sends (the unpaid request, its 402, the
// paid retry), which is what buyers do; and "pre-signed", the paid request alone (the best case). Servers on
// CPU 0; the buyers (signatures made before the clock starts) and the facilitator on CPU 1. Aim: the fetch
// workload at ≤ 0.6 of the reference's CPU per call, on both stores.
//
//   node_modules/.bin/node bench/paid-path.ts   (BENCH_PAID_CALLS=2000, BENCH_PAID_WARMUP=400,
//     BENCH_PAID_BUYERS=8, BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/postgres; BENCH_PG_URL=none skips PG;
//     BENCH_CPU_PROF=<dir> writes CPU profiles of the paycall children; BENCH_PAID_WORKLOADS=fetch runs only
//     those workloads; BENCH_STATEMENTS=1 also counts the SQL statements per paid call, by kind)
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import pg from "pg";
import { knob } from "./common.ts";
import {
  asNpmStart,
  cleanup,
  cpuTimes,
  NPM_START_NODE_FLAGS,
  PINNED,
  ROOT,
  type RunningServer,
  scratchDir,
  spawnPinned,
  startServer,
  stopChild,
  tail,
  wasInterrupted,
} from "./processes.ts";

const CALLS = knob("BENCH_PAID_CALLS", 2000, 50, 100_000);
const WARMUP = knob("BENCH_PAID_WARMUP", 400, 0, 100_000);
const BUYERS = knob("BENCH_PAID_BUYERS", 8, 1, 256);
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ROUTE = "/v1/macro/ecb/fx?pair=USD";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
/** The aim: paycall's CPU per call of the fetch workload at most this share of the reference's. */
const AIM_RATIO = 0.6;

const WORKLOADS = {
  fetch: "@x402/fetch: 402 + paid retry",
  presigned: "pre-signed paid request",
} as const;
type Workload = keyof typeof WORKLOADS;
const CHOSEN = (process.env.BENCH_PAID_WORKLOADS?.split(",") ?? Object.keys(WORKLOADS)).map((name) => {
  if (!(name in WORKLOADS)) throw new Error(`BENCH_PAID_WORKLOADS: unknown workload ${name}`);
  return name as Workload;
});
/** BENCH_STATEMENTS=1: the paycall children count their SQL statements (bench/servers/count-statements.ts). */
const COUNT_STATEMENTS = process.env.BENCH_STATEMENTS === "1";

interface LoadResult {
  statuses: Record<string, number>;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Measured extends LoadResult {
  server: string;
  workload: Workload;
  signatureBytes: number;
  userUsPerCall: number;
  kernelUsPerCall: number;
  facilitatorConnections: number;
  /** SQL statements per paid call by kind, when counted. */
  statements?: Record<string, number>;
}

/** The statement counts of a child started with the counting preload (it writes them on SIGUSR2). */
async function statementCounts(server: RunningServer): Promise<Record<string, number> | undefined> {
  const file = server.info.statementsFile as string | undefined;
  if (!file) return undefined;
  fs.rmSync(file, { force: true });
  process.kill(server.pid, "SIGUSR2");
  for (let waited = 0; waited < 5000; waited += 20) {
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, number>;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the paycall child did not write its statement counts");
}

function perCall(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([kind, n]) => [kind, (n - (before[kind] ?? 0)) / CALLS] as const)
      .filter(([, n]) => n > 0),
  );
}

/** Runs the buyers against `url`: signs first, then (clock running) makes `count` paid calls of `workload`. */
async function pay(
  server: RunningServer,
  url: string,
  count: number,
  workload: Workload,
): Promise<LoadResult & { signatureBytes: number; cpu: { userUs: number; systemUs: number } }> {
  const child: ChildProcess = spawnPinned(1, [
    "bench/servers/paid-load.ts",
    url,
    String(count),
    String(BUYERS),
    workload,
  ]);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 4000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let before: ReturnType<typeof cpuTimes>;
  let signatureBytes = 0;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for await (const line of lines) {
    if (!line.startsWith("{")) continue;
    const message = JSON.parse(line) as {
      signed?: number;
      signatureBytes?: number;
      done?: boolean;
    } & LoadResult;
    if (message.signed !== undefined) {
      signatureBytes = message.signatureBytes ?? 0;
      before = cpuTimes(server.pid);
      child.stdin?.write("go\n");
      continue;
    }
    if (message.done) {
      const after = cpuTimes(server.pid);
      await exited;
      if (!before || !after) throw new Error("/proc is needed to read the server's CPU time");
      return {
        ...message,
        signatureBytes,
        cpu: { userUs: after.userUs - before.userUs, systemUs: after.systemUs - before.systemUs },
      };
    }
  }
  await exited;
  throw new Error(`the buyers stopped without a result (exit ${child.exitCode})\n${tail(stderr)}`);
}

async function facilitatorConnections(url: string): Promise<number> {
  const response = await fetch(`${url}/stats`);
  return ((await response.json()) as { connections: number }).connections;
}

/** Each workload on `server`: a warm-up run, then the measured run. */
async function measure(name: string, server: RunningServer, facilitatorUrl: string): Promise<Measured[]> {
  const url = `${server.url}${ROUTE}`;
  const measured: Measured[] = [];
  for (const workload of CHOSEN) {
    if (WARMUP > 0) await pay(server, url, WARMUP, workload);
    const connectionsBefore = await facilitatorConnections(facilitatorUrl);
    const statementsBefore = await statementCounts(server);
    const result = await pay(server, url, CALLS, workload);
    const statementsAfter = await statementCounts(server);
    const paid = result.statuses["200"] ?? 0;
    if (paid !== CALLS)
      throw new Error(
        `${name}, ${workload}: ${paid} of ${CALLS} paid calls answered 200 (${JSON.stringify(result.statuses)})`,
      );
    measured.push({
      server: name,
      workload,
      ...result,
      userUsPerCall: result.cpu.userUs / CALLS,
      kernelUsPerCall: result.cpu.systemUs / CALLS,
      facilitatorConnections: (await facilitatorConnections(facilitatorUrl)) - connectionsBefore,
      ...(statementsBefore && statementsAfter
        ? { statements: perCall(statementsBefore, statementsAfter) }
        : {}),
    });
  }
  return measured;
}

function row(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i < 2 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
    .join("  ");
}

const cpuOf = (r: Measured) => r.userUsPerCall + r.kernelUsPerCall;

function report(results: Measured[]): void {
  const widths = [20, 30, 8, 7, 7, 8, 7, 7, 8, 8, 5];
  console.log(
    `\n${row(["server", "workload", "sig. KB", "calls/s", "p50 ms", "p99 ms", "user µs", "kern µs", "CPU µs", "× ref.", "fac."], widths)}`,
  );
  const reference = (workload: Workload) =>
    results.find((r) => r.server.startsWith("reference") && r.workload === workload);
  for (const r of results) {
    const ref = reference(r.workload);
    console.log(
      row(
        [
          r.server,
          WORKLOADS[r.workload],
          (r.signatureBytes / 1024).toFixed(1),
          r.perSecond.toFixed(0),
          r.p50Ms.toFixed(2),
          r.p99Ms.toFixed(2),
          r.userUsPerCall.toFixed(0),
          r.kernelUsPerCall.toFixed(0),
          cpuOf(r).toFixed(0),
          ref ? (cpuOf(r) / cpuOf(ref)).toFixed(2) : "",
          String(r.facilitatorConnections),
        ],
        widths,
      ),
    );
  }
  console.log("");
  for (const r of results) {
    if (!r.statements) continue;
    const total = Object.values(r.statements).reduce((a, b) => a + b, 0);
    const kinds = Object.entries(r.statements)
      .map(([kind, n]) => `${kind} ${n.toFixed(2)}`)
      .join(", ");
    console.log(
      `${r.server}, ${WORKLOADS[r.workload]}: ${total.toFixed(2)} SQL statements per call (${kinds})`,
    );
  }
  for (const r of results) {
    const ref = reference(r.workload);
    if (!ref || r === ref) continue;
    const ratio = cpuOf(r) / cpuOf(ref);
    const aim =
      r.workload === "fetch"
        ? `; aim ≤ ${AIM_RATIO} of the reference: ${ratio.toFixed(2)}, ${ratio <= AIM_RATIO ? "met" : "NOT met"}`
        : "";
    console.log(
      `${r.server}, ${WORKLOADS[r.workload]}: ${(cpuOf(r) / 1000).toFixed(2)} ms CPU per call, ` +
        `reference ${(cpuOf(ref) / 1000).toFixed(2)} ms${aim}`,
    );
  }
}

/** paycall's 402 for the route, and its free sample: the reference is given the same extensions and bytes. */
async function paycallContent(base: string) {
  const challenge = await fetch(`${base}${ROUTE}`);
  const header = challenge.headers.get("payment-required");
  if (challenge.status !== 402 || !header) throw new Error(`paycall answered ${challenge.status}, not a 402`);
  const sample = await fetch(`${base}${ROUTE}&sample=1`);
  return {
    extensions: JSON.stringify(decodePaymentRequiredHeader(header).extensions ?? {}),
    unpaidBody: await challenge.text(),
    body: await sample.text(),
  };
}

async function main(): Promise<void> {
  if (!PINNED)
    console.warn("WARNING: taskset is missing or fewer than 2 CPUs: servers and buyers share cores.");
  console.log(
    `paid-path bench: GET ${ROUTE}, ${CALLS} paid calls after ${WARMUP} warm-up per workload, ${BUYERS} buyers; ` +
      `servers ${PINNED ? "on CPU 0" : "unpinned"}, buyers and facilitator ${PINNED ? "on CPU 1" : "unpinned"}`,
  );
  const facilitator = await startServer(
    "facilitator",
    "bench/servers/facilitator.ts",
    [],
    process.env,
    [],
    1,
  );
  const results: Measured[] = [];
  const paycallEnv = {
    ...asNpmStart(),
    FACILITATOR_URL: facilitator.url,
    PAY_TO_EVM: PAY_TO,
    BENCH_PAYCALL_WARM: "1",
  };

  const profileDir = process.env.BENCH_CPU_PROF?.trim();
  const profileArgs = [
    ...NPM_START_NODE_FLAGS,
    ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
    ...(COUNT_STATEMENTS ? ["--import", path.join(ROOT, "bench/servers/count-statements.ts")] : []),
  ];
  const statementsEnv = (name: string) =>
    COUNT_STATEMENTS ? { BENCH_STATEMENTS_FILE: path.join(scratchDir("paid-statements-"), name) } : {};
  const sqlite = await startServer(
    "paycall",
    "bench/servers/paycall.ts",
    [],
    { ...paycallEnv, ...statementsEnv("sqlite.json") },
    profileArgs,
  );
  const content = await paycallContent(sqlite.url);
  results.push(...(await measure("paycall, SQLite", sqlite, facilitator.url)));
  await stopChild(sqlite.child);

  if (PG_URL !== "none") {
    const schema = `bench_paid_${process.pid}`;
    const postgres = await startServer(
      "paycall",
      "bench/servers/paycall.ts",
      [],
      {
        ...paycallEnv,
        DATABASE_URL: PG_URL,
        DATABASE_SCHEMA: schema,
        ...statementsEnv("postgres.json"),
      },
      profileArgs,
    );
    try {
      results.push(...(await measure("paycall, PostgreSQL", postgres, facilitator.url)));
    } finally {
      await stopChild(postgres.child);
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  }

  const reference = await startServer("reference", "bench/servers/reference-hono.ts", [], {
    ...process.env,
    BENCH_PAY_TO: PAY_TO,
    BENCH_FACILITATOR_URL: facilitator.url,
    BENCH_ROUTE_PATH: ROUTE.split("?")[0],
    BENCH_BODY: content.body,
    BENCH_EXTENSIONS: content.extensions,
    BENCH_UNPAID_BODY: content.unpaidBody,
  });
  results.push(...(await measure("reference @x402/hono", reference, facilitator.url)));
  await cleanup();
  report(results);
}

main().catch(async (error: unknown) => {
  if (wasInterrupted()) return;
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  await cleanup();
  process.exit(1);
});
