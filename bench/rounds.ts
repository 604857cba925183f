// Contenders measured alternately in short rounds. On a small shared machine speed drifts in waves of seconds to
// minutes, so contenders measured one after another see different machines; measured in turn, round after round,
// each round's ratio compares contenders under nearly the same conditions, and the median of those per-round
// ratios (with its range) is the figure a bench reports, never a best run. Servers stay up across rounds.

export interface Contender<Result> {
  name: string;
  /** One measurement of this contender (round numbers start at 1). */
  measure: (round: number) => Promise<Result>;
}

/**
 * Runs `rounds` rounds; each measures every contender once, in an order rotated by one each round (with two
 * contenders: alternated), so no contender always runs first or right after the same one. `onRound` sees each
 * round's results (to print a progress line). Returns every contender's results, one per round, in round order.
 */
export async function inRounds<Result>(
  contenders: Contender<Result>[],
  rounds: number,
  onRound?: (round: number, results: Map<string, Result>) => void,
): Promise<Map<string, Result[]>> {
  const all = new Map<string, Result[]>(contenders.map((c) => [c.name, []]));
  for (let round = 1; round <= rounds; round++) {
    const shift = (round - 1) % contenders.length;
    const order = [...contenders.slice(shift), ...contenders.slice(0, shift)];
    const these = new Map<string, Result>();
    for (const contender of order) {
      const result = await contender.measure(round);
      these.set(contender.name, result);
      all.get(contender.name)?.push(result);
    }
    onRound?.(round, new Map(contenders.map((c) => [c.name, these.get(c.name) as Result])));
  }
  return all;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Each round's `figure` of `contender` divided by the same round's figure of `baseline`. */
export function perRoundRatios<Result>(
  results: Map<string, Result[]>,
  contender: string,
  baseline: string,
  figure: (result: Result) => number,
): number[] {
  const ours = results.get(contender) ?? [];
  const theirs = results.get(baseline) ?? [];
  return ours.map((result, i) => figure(result) / figure(theirs[i] as Result));
}

/** An aim on a ratio: at most or at least `value`. */
export interface Aim {
  atMost?: number;
  atLeast?: number;
}

export function aimMet(aim: Aim, value: number): boolean {
  return (
    (aim.atMost === undefined || value <= aim.atMost) && (aim.atLeast === undefined || value >= aim.atLeast)
  );
}

function aimText(aim: Aim): string {
  return [
    aim.atMost !== undefined ? `≤ ${aim.atMost}` : "",
    aim.atLeast !== undefined ? `≥ ${aim.atLeast}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
}

/**
 * One line: "label: median 0.55 (0.51–0.60 over 5 rounds); aim ≤ 0.6: met by the median". Without an aim the
 * ratio is reported only.
 */
export function ratioLine(label: string, ratios: number[], aim?: Aim, digits = 2): string {
  const s = spread(ratios);
  const figure = `median ${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)} over ${ratios.length} round${ratios.length === 1 ? "" : "s"})`;
  if (!aim) return `${label}: ${figure}`;
  return `${label}: ${figure}; aim ${aimText(aim)}: ${aimMet(aim, s.median) ? "met" : "NOT met"} by the median`;
}

/** A figure's median and range, formatted: "812 (790–845)". */
export function spreadText(values: number[], digits = 0): string {
  const s = spread(values);
  const fmt = (n: number) =>
    n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}
