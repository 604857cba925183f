// Benchmark of the 402 challenge path: an unpaid GET /v1/macro/ecb/fx?pair=USD against paycall, against a bare
// node:http server answering the identical bytes, and against the reference @x402/hono middleware on the same
// route, twice: as configured by default (a 402 of about 650 bytes), and given paycall's extensions and body so
// that it writes the same content (about 5 KB); and paycall selling on Base and Solana (NETWORKS=base,solana, the
// local facilitator: its 402 also offers Solana, with the fee payer and a blockhash hint). Servers run one at a time on CPU 0, autocannon on CPU 1; rounds
// rotate the order. See bench/README.md.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { knob } from "./common.ts";
import {
  asNpmStart,
  cleanup,
  cpuTimes,
  NPM_START_NODE_FLAGS,
  PINNED,
  ROOT,
  type RunningServer,
  runBench,
  scratchDir,
  spawnPinned,
  startServer,
  tail,
} from "./processes.ts";
import { type Aim, inRounds, median, perRoundRatios, ratioLine, spread } from "./rounds.ts";

const AUTOCANNON = path.join(ROOT, "node_modules/autocannon/autocannon.js");
/**
 * BENCH_DISTINCT=1: a different query on every request (bench/servers/distinct-load.ts), as buyers and crawlers
 * send them; otherwise one URL repeated, which mostly measures the per-URL 402 cache.
 */
const DISTINCT = process.env.BENCH_DISTINCT === "1";
const ROUTE = DISTINCT ? "/v1/courts/search?q=bench-0" : "/v1/macro/ecb/fx?pair=USD";
const ROUTE_PATH = ROUTE.split("?")[0] as string;
const RESULTS_FILE = path.join(
  ROOT,
  process.env.BENCH_DISTINCT === "1"
    ? "bench/results/challenge-402-distinct.json"
    : "bench/results/challenge-402.json",
);

const settings = {
  rounds: knob("BENCH_ROUNDS", 5, 1, 50),
  seconds: knob("BENCH_SECONDS", 5, 1, 120),
  warmupSeconds: knob("BENCH_WARMUP_SECONDS", 2, 0, 60),
  connections: knob("BENCH_CONNECTIONS", 50, 1, 1000),
  pipelining: knob("BENCH_PIPELINING", 1, 1, 64),
};
/** BENCH_CPU_PROF=1 (or a directory): run the paycall child under --cpu-prof; the profile is written when it exits. */
const cpuProfDir = (() => {
  const raw = process.env.BENCH_CPU_PROF?.trim();
  if (!raw || raw === "0" || raw === "false") return undefined;
  return raw === "1" || raw === "true" ? path.join(ROOT, "bench/results/profiles") : path.resolve(raw);
})();

type ServerName = "bare" | "paycall" | "paycallSolana" | "reference" | "referenceSame";
const SERVER_NAMES = ["bare", "paycall", "paycallSolana", "reference", "referenceSame"] as const;
const LABELS: Record<ServerName, string> = {
  bare: "bare node:http",
  paycall: "paycall",
  paycallSolana: "paycall, Base + Solana",
  reference: "reference @x402/hono",
  referenceSame: "reference, same 402",
};

// ---------------------------------------------------------------- child processes

// ---------------------------------------------------------------- the 402 itself

interface Captured {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  paymentRequired: PaymentRequired;
}

/** Headers node:http adds by itself (or that describe the connection); every other header is part of "the 402". */
const CONNECTION_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

async function capture402(name: ServerName, url: string): Promise<Captured> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 402) {
    throw new Error(
      `${name}: expected 402 from ${url}, got ${response.status}: ${body.toString("utf8").slice(0, 300)}`,
    );
  }
  const header = response.headers.get("payment-required");
  if (!header) throw new Error(`${name}: the 402 has no PAYMENT-REQUIRED header`);
  let paymentRequired: PaymentRequired;
  try {
    paymentRequired = decodePaymentRequiredHeader(header);
  } catch (error) {
    throw new Error(`${name}: the PAYMENT-REQUIRED header does not decode: ${String(error)}`);
  }
  if (
    paymentRequired.x402Version !== 2 ||
    !Array.isArray(paymentRequired.accepts) ||
    paymentRequired.accepts.length === 0
  ) {
    throw new Error(`${name}: the PAYMENT-REQUIRED header is not an x402 v2 challenge with accepts`);
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of response.headers) {
    if (!CONNECTION_HEADERS.has(key)) headers[key] = value;
  }
  return { status: response.status, headers, body, paymentRequired };
}

// ---------------------------------------------------------------- load runs

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
  latency: { p50: number; p99: number; average: number };
  requests: { average: number; total: number; sent: number };
  throughput: { average: number };
}

/** One autocannon run on CPU 1, killed if it overruns its duration by 30 s. */
function autocannon(url: string, seconds: number): Promise<AutocannonResult> {
  const [path, query] = url.split("?") as [string, string];
  const args = DISTINCT
    ? [
        "bench/servers/distinct-load.ts",
        String(settings.connections),
        String(settings.pipelining),
        String(seconds),
        path,
        query.split("=")[0] as string,
      ]
    : [
        AUTOCANNON,
        "-j",
        "-n",
        "-c",
        String(settings.connections),
        "-p",
        String(settings.pipelining),
        "-d",
        String(seconds),
        url,
      ];
  const child = spawnPinned(1, args);
  child.stdin?.end();
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        child.kill("SIGKILL");
        reject(new Error(`autocannon overran its ${seconds} s run by 30 s`));
      },
      (seconds + 30) * 1000,
    );
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        resolve(JSON.parse(stdout) as AutocannonResult);
      } catch (error) {
        reject(new Error(`autocannon failed (${String(error)})\n${tail(stderr)}`));
      }
    });
  });
}

interface Sample {
  round: number;
  reqPerSec: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerReq: number | null;
  non402: number;
  errors: number;
}

async function measure(server: RunningServer<ServerName>, round: number): Promise<Sample> {
  const url = `${server.url}${ROUTE}`;
  if (settings.warmupSeconds > 0) await autocannon(url, settings.warmupSeconds);
  const before = cpuTimes(server.pid);
  const result = await autocannon(url, settings.seconds);
  const after = cpuTimes(server.pid);
  const count402 = result.statusCodeStats?.["402"]?.count ?? 0;
  const cpuUsPerReq =
    before !== undefined && after !== undefined && result.requests.total > 0
      ? (after.userUs + after.systemUs - before.userUs - before.systemUs) / result.requests.total
      : null;
  return {
    round,
    reqPerSec: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuUsPerReq,
    non402: result.requests.total - count402,
    errors: result.errors + result.timeouts,
  };
}

// ---------------------------------------------------------------- statistics and report

function summarise(samples: Sample[]) {
  const rps = samples.map((s) => s.reqPerSec);
  const cpu = samples.map((s) => s.cpuUsPerReq).filter((v): v is number => v !== null);
  return {
    medianReqPerSec: median(rps),
    minReqPerSec: Math.min(...rps),
    maxReqPerSec: Math.max(...rps),
    medianP50Ms: median(samples.map((s) => s.p50Ms)),
    medianP99Ms: median(samples.map((s) => s.p99Ms)),
    medianCpuUsPerReq: cpu.length ? median(cpu) : null,
    non402: samples.reduce((n, s) => n + s.non402, 0),
    errors: samples.reduce((n, s) => n + s.errors, 0),
  };
}

function pad(text: string, width: number, left = false): string {
  return left ? text.padEnd(width) : text.padStart(width);
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const expectedSeconds =
    settings.rounds * SERVER_NAMES.length * (settings.warmupSeconds + settings.seconds + 2) + 60;
  const watchdog = setTimeout(() => {
    console.error(`the bench overran its time bound (${expectedSeconds * 2} s); stopping`);
    void cleanup().finally(() => process.exit(1));
  }, expectedSeconds * 2000);
  watchdog.unref();

  if (!PINNED) {
    console.warn(
      "WARNING: taskset is missing or fewer than 2 CPUs: servers and the load generator run unpinned, so the figures compete for the same cores.",
    );
  }
  console.log(
    `402 challenge bench: GET ${ROUTE}, ${settings.rounds} rounds × ${settings.seconds} s after ${settings.warmupSeconds} s warm-up, ` +
      `autocannon -c ${settings.connections} -p ${settings.pipelining}; servers ${PINNED ? "on CPU 0" : "unpinned"}, load ${PINNED ? "on CPU 1" : "unpinned"}`,
  );

  const tmpDir = scratchDir("paycall-bench-402-");

  // BENCH_PAYCALL_NODE_FLAGS: node flags for paycall's process only (e.g. --max-semi-space-size=1, see "Memory").
  const paycallNodeArgs = [
    ...(process.env.BENCH_PAYCALL_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean),
    ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : []),
  ];
  const paycall = await startServer("paycall", "bench/servers/paycall.ts", [], asNpmStart(), [
    ...NPM_START_NODE_FLAGS,
    ...paycallNodeArgs,
  ]);
  const paycallCache = paycall.info.warmed
    ? "warm (ecb.fx warmer ran on the recordings)"
    : "cold (no warmer ran)";
  console.log(`paycall ECB cache: ${paycallCache}`);
  const recorded = await capture402("paycall", `${paycall.url}${ROUTE}`);
  const payTo = recorded.paymentRequired.accepts[0]!.payTo;
  const recordedFile = path.join(tmpDir, "paycall-402.json");
  fs.writeFileSync(
    recordedFile,
    JSON.stringify({
      status: recorded.status,
      headers: recorded.headers,
      bodyBase64: recorded.body.toString("base64"),
    }),
  );

  const referenceEnv = {
    ...process.env,
    BENCH_PAY_TO: payTo,
    BENCH_ROUTE_PATH: ROUTE_PATH,
    BENCH_DESCRIPTION: recorded.paymentRequired.resource?.description ?? "",
  };
  const [paycallSolana, bare, reference, referenceSame] = await Promise.all([
    startServer(
      "paycallSolana",
      "bench/servers/paycall.ts",
      [],
      asNpmStart({ ...process.env, NETWORKS: "base,solana" }),
      [...NPM_START_NODE_FLAGS, ...paycallNodeArgs],
    ),
    startServer("bare", "bench/servers/bare.ts", [recordedFile], process.env),
    startServer("reference", "bench/servers/reference-hono.ts", [], referenceEnv),
    startServer("referenceSame", "bench/servers/reference-hono.ts", [], {
      ...referenceEnv,
      BENCH_EXTENSIONS: JSON.stringify(recorded.paymentRequired.extensions ?? {}),
      BENCH_UNPAID_BODY: recorded.body.toString("utf8"),
    }),
  ]);

  // Each server must answer the route with a decodable x402 v2 402; the bare one with paycall's exact bytes.
  const bareResponse = await capture402("bare", `${bare.url}${ROUTE}`);
  for (const key of new Set([...Object.keys(recorded.headers), ...Object.keys(bareResponse.headers)])) {
    if (bareResponse.headers[key] !== recorded.headers[key])
      throw new Error(`bare: header ${key} differs from paycall's`);
  }
  if (!bareResponse.body.equals(recorded.body)) throw new Error("bare: body differs from paycall's");
  const referenceResponse = await capture402("reference", `${reference.url}${ROUTE}`);
  if (referenceResponse.paymentRequired.accepts[0]?.payTo !== payTo)
    throw new Error("reference: payTo differs from paycall's");
  const referenceSameResponse = await capture402("referenceSame", `${referenceSame.url}${ROUTE}`);
  const solanaResponse = await capture402("paycallSolana", `${paycallSolana.url}${ROUTE}`);
  if (!solanaResponse.paymentRequired.accepts.some((a) => a.network.startsWith("solana:")))
    throw new Error("paycallSolana: the 402 offers no Solana payment");
  const wire = (c: Captured) => ({
    paymentRequiredHeaderBytes: Buffer.byteLength(c.headers["payment-required"] ?? ""),
    bodyBytes: c.body.length,
  });
  console.log(
    `checked: all three answer 402 with a decodable PAYMENT-REQUIRED (paycall/bare header ${wire(recorded).paymentRequiredHeaderBytes} B + body ${wire(recorded).bodyBytes} B; ` +
      `reference header ${wire(referenceResponse).paymentRequiredHeaderBytes} B + body ${wire(referenceResponse).bodyBytes} B; ` +
      `reference with the same content header ${wire(referenceSameResponse).paymentRequiredHeaderBytes} B + body ${wire(referenceSameResponse).bodyBytes} B; ` +
      `paycall on Base + Solana header ${wire(solanaResponse).paymentRequiredHeaderBytes} B + body ${wire(solanaResponse).bodyBytes} B)`,
  );

  const servers: RunningServer<ServerName>[] = [bare, paycall, paycallSolana, reference, referenceSame];
  const byName = await inRounds(
    servers.map((server) => ({
      name: server.name as string,
      measure: async (round: number) => {
        const sample = await measure(server, round);
        if (sample.non402 > 0 || sample.errors > 0)
          console.warn(
            `  WARNING: ${LABELS[server.name]} round ${round}: ${sample.non402} non-402 answers, ${sample.errors} errors/timeouts`,
          );
        return sample;
      },
    })),
    settings.rounds,
    (round, these) =>
      console.log(
        `round ${round}/${settings.rounds}: ${[...these].map(([name, s]) => `${LABELS[name as ServerName]} ${fmt(s.reqPerSec)}`).join(" · ")} req/s`,
      ),
  );
  const samples = Object.fromEntries(SERVER_NAMES.map((name) => [name, byName.get(name) ?? []])) as Record<
    ServerName,
    Sample[]
  >;

  const summary = {
    bare: summarise(samples.bare),
    paycall: summarise(samples.paycall),
    paycallSolana: summarise(samples.paycallSolana),
    reference: summarise(samples.reference),
    referenceSame: summarise(samples.referenceSame),
  };
  // The figures are the per-round ratios: each round measures the servers within seconds of each other.
  const reqPerSec = (sample: Sample) => sample.reqPerSec;
  const ratios = {
    paycallOverBare: perRoundRatios(byName, "paycall", "bare", reqPerSec),
    paycallOverReference: perRoundRatios(byName, "paycall", "reference", reqPerSec),
    paycallOverReferenceSame: perRoundRatios(byName, "paycall", "referenceSame", reqPerSec),
    solanaOverBase: perRoundRatios(byName, "paycallSolana", "paycall", reqPerSec),
  };
  const aims: Record<keyof typeof ratios, Aim | undefined> = {
    paycallOverBare: { atLeast: 0.6 },
    paycallOverReference: { atLeast: DISTINCT ? 2 : 3 },
    paycallOverReferenceSame: undefined,
    solanaOverBase: undefined,
  };

  const header = [
    pad("server", 22, true),
    pad("median req/s", 13),
    pad("min–max req/s", 17),
    pad("× bare", 7),
    pad("p50 ms", 7),
    pad("p99 ms", 7),
    pad("CPU µs/req", 11),
  ].join("  ");
  console.log(`\n${header}\n${"-".repeat(header.length)}`);
  for (const name of SERVER_NAMES) {
    const s = summary[name];
    console.log(
      [
        pad(LABELS[name], 22, true),
        pad(fmt(s.medianReqPerSec), 13),
        pad(`${fmt(s.minReqPerSec)}–${fmt(s.maxReqPerSec)}`, 17),
        pad(median(perRoundRatios(byName, name, "bare", reqPerSec)).toFixed(2), 7),
        pad(String(s.medianP50Ms), 7),
        pad(String(s.medianP99Ms), 7),
        pad(s.medianCpuUsPerReq === null ? "n/a" : s.medianCpuUsPerReq.toFixed(1), 11),
      ].join("  "),
    );
  }
  const problems = SERVER_NAMES.filter((n) => summary[n].non402 > 0 || summary[n].errors > 0);
  if (problems.length)
    console.warn(`WARNING: non-402 answers or errors during the runs of: ${problems.join(", ")}`);

  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  fs.writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify(
      {
        benchmark: "challenge-402",
        route: `GET ${ROUTE}`,
        finishedAt: new Date().toISOString(),
        machine: {
          cpus: os.availableParallelism(),
          cpuModel: os.cpus()[0]?.model ?? "unknown",
          platform: `${os.platform()} ${os.release()}`,
          node: process.version,
          pinned: PINNED,
          loopback: true,
        },
        settings: {
          ...settings,
          loadGenerator: "autocannon 9",
          paycallCache,
          cpuProfile: cpuProfDir ?? null,
        },
        responses: {
          paycall: wire(recorded),
          bare: wire(bareResponse),
          reference: wire(referenceResponse),
          referenceSame: wire(referenceSameResponse),
          paycallSolana: wire(solanaResponse),
        },
        summary,
        ratios: Object.fromEntries(
          Object.entries(ratios).map(([name, values]) => [
            name,
            { perRound: values, ...spread(values), aim: aims[name as keyof typeof ratios] ?? null },
          ]),
        ),
        samples,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`results written to ${path.relative(ROOT, RESULTS_FILE)}`);

  await cleanup();
  if (cpuProfDir) console.log(`paycall CPU profile written to ${path.relative(ROOT, cpuProfDir) || "."}`);
  clearTimeout(watchdog);

  console.log("\nper-round req/s ratios (median, range):");
  console.log(ratioLine("paycall / bare node:http", ratios.paycallOverBare, aims.paycallOverBare));
  console.log(
    ratioLine("paycall / reference @x402/hono", ratios.paycallOverReference, aims.paycallOverReference),
  );
  console.log(
    ratioLine("paycall / the reference writing the same 402 content", ratios.paycallOverReferenceSame),
  );
  console.log(ratioLine("paycall on Base + Solana / paycall on Base", ratios.solanaOverBase));
  if (settings.rounds < 5)
    console.log(`(${settings.rounds} round(s): a check that the bench runs, not a figure; figures take ≥ 5)`);
}

runBench(main);
