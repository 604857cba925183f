// The PostgreSQL run's selection (test/postgres-selection.ts) leaves nothing out by accident.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { postgresFiles, SRC_ON_POSTGRES, TEST_DIR, testFiles } from "./postgres-selection.ts";

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

test("every family with tables of its own has tests on PostgreSQL", () => {
  const products = path.join(root, "src/products");
  const onPostgres = postgresFiles(root);
  const withTables = fs
    .readdirSync(products, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && declaresMigrations(path.join(products, entry.name)))
    .map((entry) => entry.name);
  assert.ok(withTables.length > 0);
  assert.deepEqual(
    withTables.filter((family) => !onPostgres.some((f) => f.startsWith(`src/products/${family}/`))),
    [],
  );
});

/** A family's tables come with migrations (a `migrations` entry of its Family, or a module defining them). */
function declaresMigrations(dir: string): boolean {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
    if (/\bmigrations\s*[:=]/.test(fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")))
      return true;
  }
  return false;
}
