// The PostgreSQL run's selection (test/postgres-selection.ts) leaves nothing out by accident.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import {
  familiesWithTables,
  postgresFiles,
  SRC_ON_POSTGRES,
  TEST_DIR,
  testFiles,
} from "./postgres-selection.ts";

const root = path.resolve(import.meta.dirname, "..");
const files = testFiles(root);

test("every test file in test/ is placed on purpose, with a reason", () => {
  const inTestDir = files.filter((f) => f.startsWith("test/")).map((f) => f.slice("test/".length));
  assert.deepEqual(
    inTestDir.filter((f) => !(f in TEST_DIR)),
    [],
    "add these to TEST_DIR in test/postgres-selection.ts",
  );
  assert.deepEqual(
    Object.keys(TEST_DIR).filter((f) => !inTestDir.includes(f)),
    [],
    "these no longer exist",
  );
});

test("every rule over src/ still selects a file", () => {
  const stale = SRC_ON_POSTGRES.filter((rule) => !files.some((f) => rule.pattern.test(f)));
  assert.deepEqual(
    stale.map((r) => String(r.pattern)),
    [],
  );
});

test("every family with tables of its own has tests on PostgreSQL, its end-to-end ones among them", () => {
  const withTables = familiesWithTables(root);
  assert.ok(withTables.includes("gov"), "the gov family keeps its title index in tables of its own");
  const onPostgres = postgresFiles(root);
  assert.deepEqual(
    withTables.filter((family) => !onPostgres.some((f) => f.startsWith(`src/products/${family}/`))),
    [],
  );
  const e2eOfThose = files.filter(
    (f) => /e2e\.test\.ts$/.test(f) && withTables.some((family) => f.startsWith(`src/products/${family}/`)),
  );
  assert.ok(e2eOfThose.length > 0);
  assert.deepEqual(
    e2eOfThose.filter((f) => !onPostgres.includes(f)),
    [],
  );
});
