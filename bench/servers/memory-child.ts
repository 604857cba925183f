// Memory bench child (bench/memory.ts), in one of two modes:
//   seed  writes production-size synthetic data into the store at DATA_DIR (or DATABASE_URL) and exits, so the
//         measuring process never holds the generator's garbage;
//   load  starts the real service in-process on that store (replayed upstreams, no worker), prints its
//         memory, then has every family build its in-memory index through its own loading code (the start-up
//         task a worker node runs, or the first request's path) and prints memory and the family's status
//         route's index figures after each. One JSON line per step on stdout.
import fs from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { RELEASE_AFTER_BUILDS_MS } from "../../src/memory-release.ts";
import { tickerList } from "../../src/products/edgar/edgar-store.ts";
import { directoryFor } from "../../src/products/edgar/tickers.ts";
import { ensureSampleData } from "../../src/products/mountain/data/sample-data.ts";
import { placeCatalog } from "../../src/products/mountain/osm/place-catalog.ts";
import { buildFamilies, openServiceStore, startService } from "../../src/service.ts";
import { knob } from "../common.ts";
import { seedNvd, seedOfac, seedPlaces, seedTickers } from "../memory-data.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const mode = process.argv[2];
const PASSED = ["DATA_DIR", "DATABASE_URL", "DATABASE_SCHEMA", "NVD_RECENT_DAYS", "RELEASE_MEMORY"];
const config = loadConfig({
  ...Object.fromEntries(PASSED.flatMap((n) => (process.env[n] ? [[n, process.env[n] as string]] : []))),
  PORT: "0",
  HOST: "127.0.0.1",
  UPSTREAMS: "replay",
  LOG_LEVEL: "silent",
  RUN_WARMERS: "false",
  RATE_LIMIT_PER_MIN: "1000000000",
});
const sizes = {
  cves: knob("BENCH_MEMORY_CVES", 300_000, 0, 2_000_000),
  places: knob("BENCH_MEMORY_PLACES", 1_000_000, 0, 5_000_000),
  sanctions: knob("BENCH_MEMORY_SANCTIONS", 18_000, 0, 200_000),
  tickers: knob("BENCH_MEMORY_TICKERS", 10_500, 0, 100_000),
};

/** How long the service stays idle after the last index loaded before the "settled" figure is read. */
const SETTLED_MS = knob("BENCH_MEMORY_SETTLED_MS", 15_000, 0, 120_000);

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Memory after a full collection: what the process holds, not what it has yet to collect. */
function memory() {
  gc();
  const usage = process.memoryUsage();
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const peak = /VmHWM:\s+(\d+) kB/.exec(status);
  return {
    rss: usage.rss,
    peakRss: peak ? Number(peak[1]) * 1024 : null,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
  };
}

async function seed(): Promise<void> {
  const store = await openServiceStore(config);
  try {
    const timed = async (name: string, run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      emit({ seeded: name, ms: Math.round(performance.now() - started) });
    };
    const days = Number(process.env.NVD_RECENT_DAYS ?? 120);
    await timed("nvd", () => seedNvd(store, sizes.cves, days));
    await timed("mountain", () => seedPlaces(store, sizes.places));
    await timed("ofac", () => seedOfac(store, sizes.sanctions));
    await timed("edgar", () => seedTickers(store, sizes.tickers));
  } finally {
    await store.close();
  }
}

async function load(): Promise<void> {
  const families = buildFamilies(config);
  const service = await startService(config, {
    worker: false,
    log: createLogger("silent"),
    families,
    releaseMemory: config.releaseMemory,
  });
  await service.paymentsReady;
  const status = async (path: string) => {
    const response = await fetch(`${service.url}${path}`);
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return (await response.json()) as { index?: unknown; tickers?: { index?: unknown } };
  };
  /** A worker node's start-up task for the family: the index it builds is the one its routes answer from. */
  const startTask = async (family: string, task: string) => {
    const found = families.find((f) => f.name === family)?.background?.find((t) => t.name === task);
    if (!found) throw new Error(`${family} has no background task ${task}`);
    const handle = await found.start(service.ctx);
    await handle.stop();
  };
  emit({ step: "started", ...memory() });

  const steps: Array<{ step: string; entries: number; load: () => Promise<unknown>; route: string }> = [
    {
      step: "nvd",
      entries: sizes.cves,
      load: () => startTask("nvd", "nvd.search-index"),
      route: "/v1/nvd/status",
    },
    {
      step: "mountain",
      entries: sizes.places,
      // What every food route does first: the sample areas and menus land in the store, then the places load.
      load: async () => {
        await ensureSampleData(service.ctx);
        await placeCatalog(service.ctx);
      },
      route: "/v1/food/status",
    },
    // The first request after a new list version loads the index (the start-up task does not wait for it).
    {
      step: "ofac",
      entries: sizes.sanctions,
      load: () => status("/v1/ofac/status"),
      route: "/v1/ofac/status",
    },
    {
      step: "edgar",
      entries: sizes.tickers,
      // The directory a ticker or company search builds from the cached list.
      load: async () => {
        const list = await tickerList(service.ctx);
        if (list) directoryFor(list.body);
      },
      route: "/v1/edgar/status",
    },
  ];
  const only = process.env.BENCH_MEMORY_STEPS?.split(",");
  const chosen = steps.filter(({ step }) => !only || only.includes(step));
  for (const { step, entries, load } of chosen) {
    const started = performance.now();
    await load();
    emit({ step, entries, ms: Math.round(performance.now() - started), ...memory() });
  }
  // The status routes last: what they allocate to answer must not count as the next index's memory.
  for (const { step, route } of chosen) {
    const asked = performance.now();
    const answer = await status(route).catch((error: Error) => ({ error: String(error.cause ?? error) }));
    emit({ status: step, route, ms: Math.round(performance.now() - asked), ...answer });
  }
  emit({ step: "statuses", ...memory() });
  // The service's own collection after large builds (src/memory-release.ts) has run by now: it waits for 2 s
  // without a request, and the window starts again when one came (the status requests above).
  const collectedAfter = 2 * RELEASE_AFTER_BUILDS_MS + 1000;
  await new Promise((resolve) => setTimeout(resolve, collectedAfter));
  emit({ step: "collected", ...memory() });
  // Serving, nothing loading: V8 hands back the pages a build left in its pool some seconds after it.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, SETTLED_MS - collectedAfter)));
  emit({ step: "settled", ...memory() });
  emit({ done: true });
  await service.close();
}

if (mode === "seed") await seed();
else if (mode === "load") await load();
else throw new Error(`usage: memory-child.ts seed|load (got ${mode})`);
