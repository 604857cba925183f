import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DAY_MS, MAX_WINDOW_MS, splitWindows } from "./windows.ts";

const start = new Date("2026-01-01T00:00:00.000Z");
const after = (days: number) => new Date(start.getTime() + days * DAY_MS);

describe("splitWindows", () => {
  it("keeps a span of at most 120 days in one window", () => {
    assert.deepEqual(splitWindows(start, after(120)), [{ start, end: after(120) }]);
    assert.deepEqual(splitWindows(start, after(3)), [{ start, end: after(3) }]);
  });

  it("splits a longer span into consecutive windows of at most 120 days, oldest first", () => {
    const windows = splitWindows(start, after(365));
    assert.deepEqual(
      windows.map((w) => [w.start.toISOString().slice(0, 10), w.end.toISOString().slice(0, 10)]),
      [
        ["2026-01-01", "2026-05-01"],
        ["2026-05-01", "2026-08-29"],
        ["2026-08-29", "2026-12-27"],
        ["2026-12-27", "2027-01-01"],
      ],
    );
    for (const w of windows) assert.ok(w.end.getTime() - w.start.getTime() <= MAX_WINDOW_MS);
    for (let i = 1; i < windows.length; i++)
      assert.equal(windows[i]?.start.getTime(), windows[i - 1]?.end.getTime());
  });

  it("splits at one millisecond over the limit", () => {
    assert.equal(splitWindows(start, new Date(after(120).getTime() + 1)).length, 2);
  });

  it("gives no window for an empty or reversed span and refuses a zero limit", () => {
    assert.deepEqual(splitWindows(start, start), []);
    assert.deepEqual(splitWindows(after(1), start), []);
    assert.throws(() => splitWindows(start, after(1), 0), /longer than 0/);
  });
});
