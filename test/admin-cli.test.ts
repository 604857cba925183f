// `npm run stats`: the figures in the terminal, read from the store with no server running.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Stats } from "../src/admin/stats.ts";
import { loadConfig } from "../src/config.ts";
import { openServiceStore } from "../src/service.ts";
import { dayBefore, seedCounts, seedLedger } from "./admin-seed.ts";
import { testDatabase } from "./test-store.ts";

const now = new Date();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-stats-cli-"));
const database = testDatabase();
const env = { ...database.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" };

before(async () => {
  const store = await openServiceStore(loadConfig(env));
  try {
    await seedLedger(store, now);
    await seedCounts(store);
  } finally {
    await store.close();
  }
});
after(async () => {
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function stats(...args: string[]) {
  const result = spawnSync(process.execPath, ["src/main.ts", "stats", ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("--json prints the same figures as /admin/stats", () => {
  const run = stats("--json");
  assert.equal(run.status, 0, run.stderr);
  const body = JSON.parse(run.stdout) as Stats;
  assert.deepEqual(body.period, { from: dayBefore(now, 29), to: dayBefore(now, 0), days: 30 });
  assert.deepEqual(body.revenue, { usd: "1.515", atomic: "1515000", paidCalls: 6, uniquePayers: 4 });
  assert.deepEqual(
    body.products.map((p) => [p.sku, p.usd, p.challenges, p.conversion]),
    [
      ["a.one", "0.015", 4, 0.5],
      ["b.two", "1.5", 2, 0.5],
      ["c.three", "0", 0, null],
    ],
  );
  assert.equal(body.refunds.due.length, 1);
  // The served families' warmers are listed even though none ran.
  assert.ok(body.warmers.some((w) => w.name === "ecb.fx" && w.family === "ecb" && w.health === "never"));
});

test("--from/--to narrow the period", () => {
  const run = stats("--from", dayBefore(now, 3), `--to=${dayBefore(now, 3)}`, "--json");
  assert.equal(run.status, 0, run.stderr);
  const body = JSON.parse(run.stdout) as Stats;
  assert.deepEqual(body.revenue, { usd: "1.25", atomic: "1250000", paidCalls: 2, uniquePayers: 1 });
  assert.equal(body.revenuePerDay.length, 1);
});

test("the human output is aligned tables", () => {
  const run = stats();
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.split("\n");
  const header = lines.findIndex((l) => l.startsWith("Product "));
  assert.ok(header > 0, run.stdout);
  const rows = lines.slice(header, header + 4);
  assert.match(rows[1] ?? "", /^a\.one\s+\$0\.015\s+3\s+4\s+2\s+50\.0%\s+3\s+0\/0$/);
  assert.match(rows[3] ?? "", /^c\.three\s+\$0\s+0\s+0\s+0\s+–\s+1\s+0\/0$/);
  // Right-aligned numbers end in the same column.
  const revenueEnd = (line: string) =>
    line.indexOf("$") + (line.slice(line.indexOf("$")).split(/\s/)[0]?.length ?? 0);
  assert.equal(revenueEnd(rows[1] ?? ""), revenueEnd(rows[2] ?? ""));
  assert.match(run.stdout, /Revenue\s+\$1\.515/);
});

test("a bad date names the flag and exits 1", () => {
  const run = stats("--from", "2026-02-30");
  assert.equal(run.status, 1);
  assert.match(run.stderr, /--from: expected a date YYYY-MM-DD/);
  const unknown = stats("--since", "2026-01-01");
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /unknown argument "--since"/);
});
