// Runs the tests whose outcome the store decides again on PostgreSQL (test/postgres-selection.ts says which and
// why): a fresh database for this run, dropped afterwards. Every other test runs once, on SQLite.
// PAYCALL_PG_ADMIN_URL names a server and a role that may create databases (default: local trust auth).
import path from "node:path";
import { pgAdmin as admin, pgAdminUrl as adminUrl } from "./pg-admin.ts";
import { postgresFiles } from "./postgres-selection.ts";
import { runTestFiles } from "./run-tests.ts";

const database = `paycall_test_${process.pid}_${Date.now().toString(36)}`;
// Parsed before the database is made: an admin URL the run cannot reuse must not leave a database behind.
const url = new URL(adminUrl);
url.pathname = `/${database}`;

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

const files = postgresFiles(path.resolve(import.meta.dirname, ".."));
process.stdout.write(`PostgreSQL test run on database ${database}: ${files.length} files\n`);
const ok = await runTestFiles(files, {
  concurrency: 3,
  env: { ...process.env, PAYCALL_TEST_DATABASE_URL: url.toString() },
});
try {
  await admin(`drop database if exists ${database} with (force)`);
} catch (error) {
  process.stderr.write(`could not drop ${database}: ${String(error)}\n`);
}
// exitCode, not exit(): stdout may be a pipe, and exit() would cut the reports short.
process.exitCode = ok ? 0 : 1;
