// Runs the whole test suite against PostgreSQL: a fresh database for this run, dropped afterwards.
// PAYCALL_PG_ADMIN_URL names a server and a role that may create databases (default: local trust auth).
import { spawnSync } from "node:child_process";
import { pgAdmin as admin, pgAdminUrl as adminUrl } from "./pg-admin.ts";

const database = `paycall_test_${process.pid}_${Date.now().toString(36)}`;

try {
  await admin(`create database ${database}`);
} catch (error) {
  const message = `PostgreSQL test run: cannot create a database at ${adminUrl.replace(/:[^:@/]*@/, ":***@")} (${String(error)})`;
  if (process.env.CI) {
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  process.stderr.write(`${message}; SKIPPED (set PAYCALL_PG_ADMIN_URL, or run in CI where it is required)\n`);
  process.exit(0);
}

const url = new URL(adminUrl);
url.pathname = `/${database}`;
process.stdout.write(`PostgreSQL test run on database ${database}\n`);
const result = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", "--test-timeout=180000", "src/**/*.test.ts", "test/**/*.test.ts"],
  { stdio: "inherit", env: { ...process.env, PAYCALL_TEST_DATABASE_URL: url.toString() } },
);
try {
  await admin(`drop database if exists ${database} with (force)`);
} catch (error) {
  process.stderr.write(`could not drop ${database}: ${String(error)}\n`);
}
process.exit(result.status ?? 1);
