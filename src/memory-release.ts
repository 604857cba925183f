// V8 grows the young generation while a process starts or builds a large index (much of what they allocate
// survives), and shrinks it again only at a collection made while allocation is slow, which a server left idle
// never makes. A node that has started and then waits for traffic held about 70 MB it no longer needed
// (bench/memory.ts, idle: 222 MB, and 152 MB after one memory-reducing collection). So one such collection runs
// when start is done, and once after large index builds and warmer runs, coalesced: it pauses the process for
// about 0.1 s (0.14 s at start), once per burst of background work.
//
// The collector is V8's `gc` extension, installed only in contexts made after `--expose-gc` is set; the flag is
// set for the moment that takes and unset again, so no other context (nor the global) sees a `gc` function.
import v8 from "node:v8";
import vm from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString("--expose-gc");
    collect = vm.runInNewContext("gc") as Collect;
  } catch {
    collect = null;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
  return collect;
}

/** A full collection that also hands back the young generation's unused pages; the time it took, in ms. */
export function releaseMemoryNow(): number | undefined {
  const gc = collector();
  if (!gc) return undefined;
  const started = performance.now();
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
  return performance.now() - started;
}

/** How long after the last large build the collection runs. */
export const RELEASE_AFTER_BUILDS_MS = 2_000;
let pending: NodeJS.Timeout | undefined;
let afterBuilds = false;

/** Turns on the collection after large builds (a serving process; tests leave it off). */
export function releaseMemoryAfterBuilds(on: boolean): void {
  afterBuilds = on;
}

/** After a large build: one collection once no other build has ended for 2 s (so several loads share one). */
export function releaseMemorySoon(onDone?: (ms: number | undefined) => void): void {
  if (!afterBuilds) return;
  if (pending) clearTimeout(pending);
  pending = setTimeout(() => {
    pending = undefined;
    const ms = releaseMemoryNow();
    onDone?.(ms);
  }, RELEASE_AFTER_BUILDS_MS);
  pending.unref();
}
