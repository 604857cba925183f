// NVD accepts last-modified windows of at most 120 consecutive days; longer spans are asked in several.

export const DAY_MS = 86_400_000;
export const MAX_WINDOW_MS = 120 * DAY_MS;

interface TimeWindow {
  start: Date;
  end: Date;
}

/** [start, end] as consecutive windows of at most `maxMs`, oldest first; none when end is not after start. */
export function splitWindows(start: Date, end: Date, maxMs = MAX_WINDOW_MS): TimeWindow[] {
  if (!(maxMs > 0)) throw new Error("a window must last longer than 0 ms");
  const windows: TimeWindow[] = [];
  for (let from = start.getTime(); from < end.getTime(); from += maxMs) {
    windows.push({ start: new Date(from), end: new Date(Math.min(from + maxMs, end.getTime())) });
  }
  return windows;
}
