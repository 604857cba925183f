// Benchmark of the market collector's ingest path: trade frames per second through the collector's parse,
// latest-per-symbol update and batched store writes (a SQLite file, flushed every MARKET_FLUSH_MS as in
// production), against a baseline of JSON.parse alone over the same frames, in the same run.
//
// The socket is left out on purpose: frames are handed to MarketCollector.ingest, exactly what its
// WebSocket onmessage handler calls. Both loops yield to the event loop every CHUNK frames so the collector's
// flush timer runs (the baseline yields the same way). Rounds alternate the two and the medians are compared.
//
//   node_modules/.bin/node bench/market-ingest.ts            # 5 rounds of 2 s each per side
//   BENCH_ROUNDS=3 BENCH_SECONDS=1 node_modules/.bin/node bench/market-ingest.ts
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { createLogger } from "../src/log.ts";
import { MarketCollector } from "../src/products/market/collector.ts";
import { combinedStreamUrl } from "../src/products/market/settings.ts";
import { readSnapshotNow } from "../src/products/market/snapshot.ts";
import { MARKET_SYMBOLS } from "../src/products/market/symbols.ts";
import { openStore } from "../src/store/store.ts";

function knob(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return value;
}

const ROUNDS = Math.round(knob("BENCH_ROUNDS", 5, 1, 50));
const SECONDS = knob("BENCH_SECONDS", 2, 0.2, 60);
const FLUSH_MS = Math.round(knob("MARKET_FLUSH_MS", 250, 10, 10_000));
const CHUNK = 2000;

const PRICES = [91523.41, 3052.17, 142.36, 905.12, 2.1834];
let sequence = 0;

/**
 * The next CHUNK frames, shaped like Binance's combined trade stream and cycling the five symbols, each newer
 * than the last (a repeated old trade would be ignored by the collector and never written).
 */
function nextChunk(into: string[]): void {
  const base = Date.now();
  for (let c = 0; c < CHUNK; c++) {
    const i = sequence++;
    const k = i % MARKET_SYMBOLS.length;
    const symbol = MARKET_SYMBOLS[k]!;
    const time = base + c;
    const price = (PRICES[k]! * (1 + ((i % 200) - 100) / 100_000)).toFixed(8);
    into[c] =
      `{"stream":"${symbol.toLowerCase()}@trade","data":{"e":"trade","E":${time + 1},"s":"${symbol}",` +
      `"t":${1_000_000 + i},"p":"${price}","q":"0.01200000","T":${time},"m":${i % 2 === 0},"M":true}}`;
  }
}

/**
 * Feeds chunks for `seconds` of measured time. Measured: handling the chunk and the yield after it (where the
 * collector's flush timer writes). Not measured: building the next chunk.
 */
async function runFor(seconds: number, each: (frame: string) => unknown) {
  const chunk: string[] = new Array(CHUNK);
  const wallStarted = performance.now();
  let measuredMs = 0;
  let cpuMicros = 0;
  let n = 0;
  let bytes = 0;
  while (measuredMs < seconds * 1000) {
    nextChunk(chunk);
    for (const frame of chunk) bytes += frame.length;
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (const frame of chunk) each(frame);
    await yieldToLoop();
    const used = process.cpuUsage(cpu);
    measuredMs += performance.now() - started;
    cpuMicros += used.user + used.system;
    n += CHUNK;
  }
  return {
    msgs: n,
    seconds: measuredMs / 1000,
    wallSeconds: (performance.now() - wallStarted) / 1000,
    bytes: bytes / n,
    cpuMicrosPerMsg: cpuMicros / n,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-market-bench-"));
  const store = await openStore({ kind: "sqlite", file: path.join(dir, "bench.sqlite") });
  // Nothing listens on port 9 (discard): the collector leads, fails its one connection attempt and waits an
  // hour to retry, while frames are handed to it directly.
  const collector = new MarketCollector(
    { store, log: createLogger("silent") },
    {
      streamUrl: combinedStreamUrl("ws://127.0.0.1:9"),
      flushMs: FLUSH_MS,
      silenceMs: 3_600_000,
      maxConnectionMs: 3_600_000,
      backoffBaseMs: 3_600_000,
      backoffMaxMs: 3_600_000,
      holderId: "bench",
    },
  );
  collector.start();
  while (collector.role !== "leader") await yieldToLoop();

  let sink = 0;
  const baseline: number[] = [];
  const ingest: number[] = [];
  const writesPerSecond: number[] = [];
  const ratios: number[] = [];
  const cpuBaseline: number[] = [];
  const cpuIngest: number[] = [];
  let frameBytes = 0;
  console.log(
    `market ingest: ${ROUNDS} rounds × ${SECONDS} s per side, chunks of ${CHUNK} new trade frames, ` +
      `flush every ${FLUSH_MS} ms to a SQLite file`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const parse = await runFor(SECONDS, (f) => {
      sink += (JSON.parse(f) as { data: { T: number } }).data.T & 1;
    });
    const writesBefore = (await readSnapshotNow(store))?.body.writes ?? 0;
    const full = await runFor(SECONDS, (f) => collector.ingest(f));
    frameBytes = full.bytes;
    await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 2));
    const writes = ((await readSnapshotNow(store))?.body.writes ?? 0) - writesBefore;
    baseline.push(parse.msgs / parse.seconds);
    ingest.push(full.msgs / full.seconds);
    writesPerSecond.push(writes / full.wallSeconds);
    ratios.push(ingest.at(-1)! / baseline.at(-1)!);
    cpuBaseline.push(parse.cpuMicrosPerMsg);
    cpuIngest.push(full.cpuMicrosPerMsg);
    console.log(
      `  round ${round + 1}: JSON.parse ${fmt(baseline.at(-1)!)} msg/s, collector ${fmt(ingest.at(-1)!)} msg/s ` +
        `(${ratios.at(-1)!.toFixed(2)}×), ${writes} batch writes`,
    );
  }
  const snapshot = (await readSnapshotNow(store))!.body;
  await collector.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  console.log("");
  console.log(
    "path                                              median msg/s     min–max msg/s   × baseline   CPU µs/msg",
  );
  console.log("-".repeat(106));
  const row = (label: string, values: number[], ratio: number, cpu: number[]) =>
    console.log(
      `${label.padEnd(48)}${fmt(median(values)).padStart(14)}${`${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`.padStart(20)}${ratio.toFixed(2).padStart(13)}${median(cpu).toFixed(2).padStart(13)}`,
    );
  row("baseline: JSON.parse alone", baseline, 1, cpuBaseline);
  row("collector: parse + latest per symbol + batches", ingest, median(ingest) / median(baseline), cpuIngest);
  console.log(`paired per-round ratio collector / baseline: median ${median(ratios).toFixed(2)}`);
  console.log("");
  console.log(
    `frames of ${Math.round(frameBytes)} bytes on average. batch writes: median ${median(writesPerSecond).toFixed(1)} per wall-clock second (one document with the five latest ticks); ` +
      `${fmt(snapshot.msgs)} trades ingested in all; latest BTCUSDT ${snapshot.ticks.BTCUSDT?.price}`,
  );
  if (sink < 0) console.log("unreachable: keeps the baseline's parse results alive");
}

await main();
