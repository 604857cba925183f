// Benchmark `memory`: the service's resident memory (RSS)
//   (a) after start with the sample data (replayed upstreams, bench/servers/paycall.ts), with `npm start`'s
//       flags and environment (asNpmStart), 40 s after start: from the TypeScript sources and from the JavaScript
//       src/build-js.ts writes (what `npm start` runs), alternated round by round; aim ≤ 150 MB for the latter;
//   (b) after loading production-size synthetic data into every in-memory index through the families' own
//       loading code (bench/servers/memory-child.ts, data from bench/memory-data.ts): NVD 300,000 CVEs,
//       1,000,000 OSM places, 18,000 sanctions entries, SEC's full ticker list; aim ≤ 500 MB.
//
//   node_modules/.bin/node bench/memory.ts
//   knobs: BENCH_MEMORY_RUNS (rounds of part (a), 3), BENCH_MEMORY_SETTLE_MS (idle wait, 40000),
//          BENCH_MEMORY_COMPILE_CACHE=1 (part (a) also runs the JavaScript with a filled NODE_COMPILE_CACHE),
//          BENCH_MEMORY_BEFORE=<folder> (part (a) also runs an earlier tree's sources extracted there),
//          BENCH_MEMORY_CVES / _PLACES / _SANCTIONS / _TICKERS (sizes), BENCH_MEMORY_ONLY=idle|indexes,
//          BENCH_MEMORY_FLAGS (extra node flags for both parts, space-separated), BENCH_MEMORY_STEPS=nvd,…
//          (indexes to load), BENCH_MEMORY_DATA_DIR (keep the SQLite store there and reuse it next run),
//          BENCH_MEMORY_DATABASE_URL (postgres://…: part (b) on PostgreSQL in a schema of its own),
//          BENCH_MEMORY_SETTLED_MS (part (b): idle time before the "settled" figure, 15000)
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { buildJs } from "../src/build-js.ts";
import { RELEASE_AFTER_BUILDS_MS } from "../src/memory-release.ts";
import { knob } from "./common.ts";
import {
  asNpmStart,
  cleanup,
  NPM_START_NODE_FLAGS,
  ROOT,
  rssBytes,
  scratchDir,
  spawnPinned,
  startServer,
  stopChild,
  tail,
} from "./processes.ts";
import { type Contender, inRounds, median } from "./rounds.ts";

const RUNS = knob("BENCH_MEMORY_RUNS", 3, 1, 20);
const SETTLE_MS = knob("BENCH_MEMORY_SETTLE_MS", 40_000, 0, 120_000);
const ONLY = process.env.BENCH_MEMORY_ONLY;
const EXTRA_FLAGS = (process.env.BENCH_MEMORY_FLAGS ?? "").split(/\s+/).filter(Boolean);
const SIZE_KNOBS = [
  "BENCH_MEMORY_CVES",
  "BENCH_MEMORY_PLACES",
  "BENCH_MEMORY_SANCTIONS",
  "BENCH_MEMORY_TICKERS",
];
const IDLE_AIM = 150 * 1024 * 1024;
const LOADED_AIM = 500 * 1024 * 1024;
/**
 * Peak RSS of part (b) at full size with the place catalogue holding every field of a place in memory (before it
 * kept only what a search reads): measured on the 2-core development machine, SQLite, default sizes, in the
 * same session as the figures in bench/README.md. Printed beside this run's peak as its reference.
 */
const PEAK_BEFORE_SEARCH_FIELDS_ONLY = 581 * 1024 * 1024;
/** When the child reads the "collected" figure: the service's post-build collection, and a second. */
const COLLECTED_SECONDS = (2 * RELEASE_AFTER_BUILDS_MS + 1000) / 1000;
/** The child's BENCH_MEMORY_SETTLED_MS (it reads the same knob), in seconds, for the "settled" line. */
const SETTLED_SECONDS = knob("BENCH_MEMORY_SETTLED_MS", 15_000, 0, 120_000) / 1000;

const mb = (bytes: number | null | undefined, digits = 0) =>
  bytes === null || bytes === undefined ? "-" : `${(bytes / 1024 / 1024).toFixed(digits)} MB`;
/** The contender whose figure the aim is about: what `npm start` runs. */
const NPM_START = "npm start (built JS)";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const met = (value: number, aim: number) => (value <= aim ? "met" : "NOT met");

/** Where part (a) builds the bench server as `npm start` builds the service (gitignored, as bench/results/ is). */
const BUILT_DIR = path.join(ROOT, "bench", "results", "memory-js");
const BUILT_SERVER = path.relative(ROOT, path.join(BUILT_DIR, "bench", "servers", "paycall.js"));

/** One start of the bench server: its RSS after SETTLE_MS idle. */
async function idleRss(script: string, nodeArgs: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const server = await startServer("paycall", script, [], asNpmStart(env), [
    ...NPM_START_NODE_FLAGS,
    ...nodeArgs,
  ]);
  await sleep(SETTLE_MS);
  const rss = rssBytes(server.pid);
  await stopChild(server.child);
  if (rss === undefined) throw new Error("cannot read the server's RSS from /proc");
  return rss;
}

/**
 * The contenders of part (a): the service run from its TypeScript sources (Node's type stripper loaded), as
 * everything but `npm start` runs it, and from the JavaScript src/build-js.ts writes, as `npm start` runs it;
 * with BENCH_MEMORY_COMPILE_CACHE=1 also that JavaScript with NODE_COMPILE_CACHE set (a cache filled by an
 * earlier start, as in the Docker image from its second start on). BENCH_MEMORY_BEFORE=<folder> puts first the
 * sources of an earlier tree, extracted inside this one so its packages resolve (`git archive <commit> src bench |
 * tar -x -C bench/results/before`); the others' differences are then taken from it.
 */
function idleContenders(): Contender<number>[] {
  const contenders: Contender<number>[] = [
    { name: "sources (.ts)", measure: () => idleRss("bench/servers/paycall.ts", EXTRA_FLAGS, process.env) },
    { name: NPM_START, measure: () => idleRss(BUILT_SERVER, EXTRA_FLAGS, process.env) },
  ];
  const before = process.env.BENCH_MEMORY_BEFORE;
  if (before) {
    const script = path.relative(ROOT, path.resolve(ROOT, before, "bench/servers/paycall.ts"));
    contenders.unshift({
      name: `before (${before})`,
      measure: () => idleRss(script, EXTRA_FLAGS, process.env),
    });
  }
  if (process.env.BENCH_MEMORY_COMPILE_CACHE === "1") {
    const cache = scratchDir("paycall-compile-cache-");
    const env = { ...process.env, NODE_COMPILE_CACHE: cache };
    contenders.push({
      name: "built JS + compile cache",
      measure: async () => {
        if (fs.readdirSync(cache).length === 0) await idleRss(BUILT_SERVER, EXTRA_FLAGS, env);
        return idleRss(BUILT_SERVER, EXTRA_FLAGS, env);
      },
    });
  }
  return contenders;
}

async function partIdle(): Promise<void> {
  const modules = buildJs(["src", "bench/servers"], BUILT_DIR);
  console.log(
    `(a) RSS after start with the sample data, read after ${SETTLE_MS / 1000} s idle, ${RUNS} rounds` +
      ` (contenders alternated; node flags: ${[...NPM_START_NODE_FLAGS, ...EXTRA_FLAGS].join(" ")};` +
      ` ${modules} modules built into ${path.relative(ROOT, BUILT_DIR)})`,
  );
  const contenders = idleContenders();
  const results = await inRounds(contenders, RUNS, (round, these) =>
    console.log(`  round ${round}: ${[...these].map(([name, rss]) => `${name} ${mb(rss, 1)}`).join(", ")}`),
  );
  for (const { name } of contenders) {
    const samples = results.get(name) ?? [];
    const m = median(samples);
    const aim = name === NPM_START ? `  aim ≤ 150 MB: ${met(m, IDLE_AIM)}` : "";
    console.log(
      `  ${name.padEnd(26)} median ${mb(m, 1)} (${mb(Math.min(...samples), 1)}–${mb(Math.max(...samples), 1)})${aim}`,
    );
  }
  for (const { name } of contenders.slice(1)) {
    const differences = (results.get(name) ?? []).map(
      (rss, i) => rss - (results.get(contenders[0]?.name ?? "")?.[i] ?? 0),
    );
    console.log(
      `  ${name} − ${contenders[0]?.name}, per round: median ${mb(median(differences), 1)} (${mb(Math.min(...differences), 1)} to ${mb(Math.max(...differences), 1)})`,
    );
  }
}

interface ChildLine {
  seeded?: string;
  step?: string;
  status?: string;
  route?: string;
  error?: string;
  done?: boolean;
  ms?: number;
  entries?: number;
  index?: Record<string, unknown>;
  tickers?: { index?: Record<string, unknown> };
  rss?: number;
  peakRss?: number | null;
  heapUsed?: number;
  external?: number;
  arrayBuffers?: number;
}

/** Runs memory-child.ts in `mode` to its end; its JSON lines, in order. */
async function runChild(mode: string, env: NodeJS.ProcessEnv, nodeArgs: string[]): Promise<ChildLine[]> {
  const child = spawnPinned(
    0,
    [...NPM_START_NODE_FLAGS, ...nodeArgs, "bench/servers/memory-child.ts", mode],
    asNpmStart(env),
  );
  let stdout = "";
  let stderr = "";
  const lines: ChildLine[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    let at = stdout.indexOf("\n");
    while (at >= 0) {
      const line = stdout.slice(0, at);
      stdout = stdout.slice(at + 1);
      if (line.startsWith("{")) {
        const parsed = JSON.parse(line) as ChildLine;
        lines.push(parsed);
        if (parsed.seeded)
          console.log(`  seeded ${parsed.seeded} in ${((parsed.ms ?? 0) / 1000).toFixed(1)} s`);
      }
      at = stdout.indexOf("\n");
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 8000);
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`memory-child ${mode} exited with ${code}\n${tail(stderr)}`);
  return lines;
}

/** The index figures of a family's status answer (EDGAR's sit under `tickers`). */
function describeIndex(answer: ChildLine | undefined): string {
  const index = answer?.index ?? answer?.tickers?.index;
  if (!index) return "";
  const entries = index.entries ?? index.documents ?? index.places ?? index.tickers;
  const bytes = index.approximateBytes;
  return `${entries ?? "?"} entries, ~${mb(typeof bytes === "number" ? bytes : undefined)}`;
}

async function partIndexes(): Promise<void> {
  const kept = process.env.BENCH_MEMORY_DATA_DIR;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: kept ?? scratchDir("paycall-memory-") };
  const databaseUrl = process.env.BENCH_MEMORY_DATABASE_URL;
  if (databaseUrl) {
    env.DATABASE_URL = databaseUrl;
    env.DATABASE_SCHEMA = `bench_memory_${process.pid}`;
  }
  console.log(
    `(b) production-size synthetic data in every in-memory index (${databaseUrl ? "PostgreSQL" : "SQLite"})`,
  );
  const marker = path.join(env.DATA_DIR as string, "seeded.json");
  const sizes = SIZE_KNOBS.map((name) => `${name}=${process.env[name] ?? "default"}`).join(" ");
  if (kept && !databaseUrl && fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === sizes) {
    console.log(`  reusing the store in ${kept} (${sizes})`);
  } else {
    const started = performance.now();
    await runChild("seed", env, []);
    fs.writeFileSync(marker, sizes);
    console.log(`  store filled in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  for (const [name, args] of [[EXTRA_FLAGS.join(" ") || "default flags", [...EXTRA_FLAGS]]] as const) {
    const lines = await runChild("load", env, [...args]);
    console.log(`  node flags: ${name}`);
    console.log(
      `  ${"after".padEnd(10)}${"entries".padStart(10)}${"load".padStart(9)}${"RSS".padStart(9)}${"+RSS".padStart(9)}${"peak".padStart(9)}${"heap".padStart(9)}${"+heap".padStart(9)}${"buffers".padStart(9)}  status route's index`,
    );
    const statusOf = (step: string | undefined) => lines.find((l) => l.status === step);
    let previous: ChildLine | undefined;
    for (const line of lines.filter((l) => l.step)) {
      const plus = (key: "rss" | "heapUsed") =>
        previous ? `+${mb((line[key] ?? 0) - (previous[key] ?? 0))}` : "";
      console.log(
        `  ${(line.step ?? "").padEnd(10)}${(line.entries?.toLocaleString("en") ?? "").padStart(10)}` +
          `${line.ms === undefined ? "".padStart(9) : `${(line.ms / 1000).toFixed(1)} s`.padStart(9)}` +
          `${mb(line.rss).padStart(9)}${plus("rss").padStart(9)}${mb(line.peakRss).padStart(9)}` +
          `${mb(line.heapUsed).padStart(9)}${plus("heapUsed").padStart(9)}${mb(line.arrayBuffers).padStart(9)}` +
          `  ${describeIndex(statusOf(line.step))}`,
      );
      previous = line;
    }
    for (const answer of lines.filter((l) => l.status)) {
      console.log(
        `  ${answer.route} answered in ${((answer.ms ?? 0) / 1000).toFixed(1)} s${answer.error ? `: ${answer.error}` : ""}`,
      );
    }
    const last = lines.filter((l) => l.step && !["statuses", "collected", "settled"].includes(l.step)).at(-1);
    const first = lines.find((l) => l.step === "started");
    const collected = lines.find((l) => l.step === "collected");
    const settled = lines.find((l) => l.step === "settled");
    if (last?.rss !== undefined && first?.rss !== undefined) {
      console.log(
        `  total right after the last load, before the service's post-build collection: RSS ${mb(last.rss)} (indexes +${mb(last.rss - first.rss)}), peak ${mb(last.peakRss)} (peak: ${met(last.peakRss ?? 0, LOADED_AIM)})`,
      );
    }
    const peak = Math.max(...lines.map((l) => l.peakRss ?? 0));
    const fullSize =
      SIZE_KNOBS.every((name) => process.env[name] === undefined) &&
      !process.env.BENCH_MEMORY_STEPS &&
      !databaseUrl &&
      EXTRA_FLAGS.length === 0;
    console.log(
      `  peak RSS while building: ${mb(peak)}; aim peak RSS ≤ 500 MB: ${met(peak, LOADED_AIM)}` +
        (fullSize
          ? ` (reference: ${mb(PEAK_BEFORE_SEARCH_FIELDS_ONLY)} with every place field in memory and V8's default young generation, ${(peak / PEAK_BEFORE_SEARCH_FIELDS_ONLY).toFixed(2)}×)`
          : " (no reference: sizes, steps, flags or store differ from the default run)"),
    );
    if (collected?.rss !== undefined) {
      console.log(
        `  total loaded, after the post-build collection (${COLLECTED_SECONDS} s after the last load): RSS ${mb(collected.rss)}; aim ≤ 500 MB: ${met(collected.rss, LOADED_AIM)}`,
      );
    }
    if (settled?.rss !== undefined) {
      console.log(
        `  total serving, ${SETTLED_SECONDS} s after the last load: RSS ${mb(settled.rss)}; aim ≤ 500 MB: ${met(settled.rss, LOADED_AIM)}`,
      );
    }
  }
}

try {
  console.log(`memory bench: ${process.execPath} ${process.version}`);
  if (ONLY !== "indexes") await partIdle();
  if (ONLY !== "idle") await partIndexes();
} finally {
  await cleanup();
}
