// Benchmark of the paid path: server CPU per paid call (user and kernel, from /proc), with a loopback
// facilitator in another process (bench/servers/facilitator.ts accepts every payment, so the figure is the
// seller's own work). paycall on SQLite and on PostgreSQL, and the reference @x402/hono middleware with the
// SDK's default HTTP facilitator client doing the same verify + settle, in the same run. Servers on CPU 0; the
// buyers (payments signed before the clock starts) and the facilitator on CPU 1. Aim: ≤ 1 ms.
//
//   node_modules/.bin/node bench/paid-path.ts   (BENCH_PAID_CALLS=2000, BENCH_PAID_WARMUP=400,
//     BENCH_PAID_BUYERS=8, BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/postgres; BENCH_PG_URL=none skips PG;
//     BENCH_CPU_PROF=<dir> writes CPU profiles of the paycall children)
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import pg from "pg";
import { knob } from "./common.ts";
import {
  asNpmStart,
  cleanup,
  cpuTimes,
  NPM_START_NODE_FLAGS,
  PINNED,
  type RunningServer,
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

interface LoadResult {
  statuses: Record<string, number>;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

interface Measured extends LoadResult {
  name: string;
  userUsPerCall: number;
  kernelUsPerCall: number;
  facilitatorConnections: number;
}

/** Runs the buyers against `url`: signs first, then (clock running) pays `count` times. */
async function pay(
  server: RunningServer,
  url: string,
  count: number,
): Promise<LoadResult & { cpu: { userUs: number; systemUs: number } }> {
  const child: ChildProcess = spawnPinned(1, [
    "bench/servers/paid-load.ts",
    url,
    String(count),
    String(BUYERS),
  ]);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 4000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let before: ReturnType<typeof cpuTimes>;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for await (const line of lines) {
    if (!line.startsWith("{")) continue;
    const message = JSON.parse(line) as { signed?: number; done?: boolean } & LoadResult;
    if (message.signed !== undefined) {
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

async function measure(name: string, server: RunningServer, facilitatorUrl: string): Promise<Measured> {
  const url = `${server.url}${ROUTE}`;
  if (WARMUP > 0) await pay(server, url, WARMUP);
  const connectionsBefore = await facilitatorConnections(facilitatorUrl);
  const result = await pay(server, url, CALLS);
  const paid = result.statuses["200"] ?? 0;
  if (paid !== CALLS)
    throw new Error(
      `${name}: ${paid} of ${CALLS} paid calls answered 200 (${JSON.stringify(result.statuses)})`,
    );
  return {
    name,
    ...result,
    userUsPerCall: result.cpu.userUs / CALLS,
    kernelUsPerCall: result.cpu.systemUs / CALLS,
    facilitatorConnections: (await facilitatorConnections(facilitatorUrl)) - connectionsBefore,
  };
}

function row(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
    .join("  ");
}

async function main(): Promise<void> {
  if (!PINNED)
    console.warn("WARNING: taskset is missing or fewer than 2 CPUs: servers and buyers share cores.");
  console.log(
    `paid-path bench: GET ${ROUTE}, ${CALLS} paid calls after ${WARMUP} warm-up, ${BUYERS} buyers; ` +
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
  ];
  const sqlite = await startServer("paycall", "bench/servers/paycall.ts", [], paycallEnv, profileArgs);
  results.push(await measure("paycall, SQLite", sqlite, facilitator.url));
  const sample = await sampleBody(sqlite.url);
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
      },
      profileArgs,
    );
    try {
      results.push(await measure("paycall, PostgreSQL", postgres, facilitator.url));
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
    BENCH_BODY: sample,
  });
  results.push(await measure("reference @x402/hono", reference, facilitator.url));
  await cleanup();

  const widths = [22, 10, 8, 8, 12, 12, 12, 12];
  console.log(
    `\n${row(["server", "calls/s", "p50 ms", "p99 ms", "user µs", "kernel µs", "CPU µs/call", "fac. conns"], widths)}`,
  );
  for (const r of results) {
    console.log(
      row(
        [
          r.name,
          r.perSecond.toFixed(0),
          r.p50Ms.toFixed(2),
          r.p99Ms.toFixed(2),
          r.userUsPerCall.toFixed(0),
          r.kernelUsPerCall.toFixed(0),
          (r.userUsPerCall + r.kernelUsPerCall).toFixed(0),
          String(r.facilitatorConnections),
        ],
        widths,
      ),
    );
  }
  const ref = results.find((r) => r.name.startsWith("reference"));
  for (const r of results) {
    if (r === ref || !ref) continue;
    const cpu = r.userUsPerCall + r.kernelUsPerCall;
    const refCpu = ref.userUsPerCall + ref.kernelUsPerCall;
    console.log(
      `${r.name}: ${(cpu / 1000).toFixed(2)} ms CPU per paid call (aim ≤ 1 ms); paycall / reference = ${(cpu / refCpu).toFixed(2)}`,
    );
  }
}

/** paycall's free sample of the route: the reference answers the same bytes. */
async function sampleBody(base: string): Promise<string> {
  const response = await fetch(`${base}${ROUTE}&sample=1`);
  return await response.text();
}

main().catch(async (error: unknown) => {
  if (wasInterrupted()) return;
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  await cleanup();
  process.exit(1);
});
