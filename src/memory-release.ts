// V8 grows the young generation while a process starts or builds a large index (much of what they allocate
// survives), and shrinks it again only at a collection made while allocation is slow, which a server left idle
// never makes. A node that has started and then waits for traffic held about 80 MB it no longer needed
// (bench/memory.ts, idle: 222 MB, and 141 MB after one memory-reducing collection). So one such collection runs
// after start, and after large index builds and warmer runs, coalesced, once no request has come for 2 s: it
// pauses the process for about 0.1 s, and a collection made under traffic costs more than the pause (the paid
// path measured 15 % slower after one made in the middle of its calls), so a busy node waits for a quiet moment.
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

/** How long the process must have had no request (and no other build ended) before the collection runs. */
export const RELEASE_AFTER_BUILDS_MS = 2_000;

let enabled = false;
let pending: NodeJS.Timeout | undefined;
let requests = 0;

/** Turns the collections on (a serving process; tests leave them off). */
export function releaseMemoryAfterBuilds(on: boolean): void {
  enabled = on;
}

/** Counts a request, so a collection waits for a quiet moment. */
export function noteRequest(): void {
  requests++;
}

/** After start or a large build: one collection once the process has been quiet for 2 s (several builds share it). */
export function releaseMemorySoon(onDone?: (ms: number | undefined) => void): void {
  if (!enabled) return;
  if (pending) clearTimeout(pending);
  const wait = (seen: number) => {
    pending = setTimeout(() => {
      if (requests !== seen) return wait(requests);
      pending = undefined;
      const ms = releaseMemoryNow();
      onDone?.(ms);
    }, RELEASE_AFTER_BUILDS_MS);
    pending.unref();
  };
  wait(requests);
}
