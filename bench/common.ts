// What the benchmarks share: integer settings from the environment, deterministic pseudo-random numbers (every
// run measures the same data), and percentiles.

/** An integer setting `name` from the environment, `fallback` when unset; out of range is an error naming it. */
export function knob(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** A linear congruential generator from `seed`, and `pick`, skewed towards the start of a list as real data is. */
export function seededRandom(seed: number) {
  let state = seed;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[], skew: number): T =>
    items[Math.floor(random() ** skew * items.length)] as T;
  return { random, pick };
}

/** The p-th percentile (0–100) of ascending `sorted`. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/**
 * Milliseconds per query of `run` over `list`, ascending. With `slowest` set (a bench's *_SLOWEST knob), prints
 * the eight slowest queries under `label`.
 */
export async function timeQueries(
  run: (q: string) => Promise<unknown>,
  list: string[],
  label = "",
  slowest = false,
): Promise<number[]> {
  const out: Array<[number, string]> = [];
  for (const q of list) {
    const start = process.hrtime.bigint();
    await run(q);
    out.push([Number(process.hrtime.bigint() - start) / 1e6, q]);
  }
  out.sort((a, b) => a[0] - b[0]);
  if (slowest && label) {
    const worst = out.slice(-8).map(([ms, q]) => `${q} (${ms.toFixed(1)} ms)`);
    console.log(`  slowest ${label}: ${worst.join(", ")}`);
  }
  return out.map(([ms]) => ms);
}

/** One line of a text table: the first `left` cells padded on the right, the others on the left. */
export function tableRow(cells: string[], widths: number[], left = 1): string {
  return cells
    .map((cell, i) => (i < left ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
    .join("  ");
}
