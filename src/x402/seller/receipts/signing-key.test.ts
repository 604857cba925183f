import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { inspect } from "node:util";
import { ConfigError, loadConfig } from "../../../config.ts";
import { receiptKey, SIGNING_KEY_FILE } from "./signing-key.ts";

const KEY = `0x${"11".repeat(32)}`;

test("RECEIPT_SIGNING_KEY must be a random 32-byte hex secret; the error names the variable only", () => {
  for (const bad of ["0x1234", `0x${"zz".repeat(32)}`, `0x${"00".repeat(32)}`, "ab".repeat(32)]) {
    assert.throws(
      () => loadConfig({ RECEIPT_SIGNING_KEY: bad }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === "RECEIPT_SIGNING_KEY" &&
        !error.message.includes(bad),
    );
  }
});

test("the configured key never prints: JSON, string and inspect all show [redacted]", () => {
  const config = loadConfig({ RECEIPT_SIGNING_KEY: KEY });
  assert.equal(config.receiptSigningKey?.reveal(), KEY);
  const { env: _env, ...printable } = config;
  assert.ok(!JSON.stringify(printable).includes("1111111111"), "JSON");
  assert.ok(!inspect(printable, { depth: 5 }).includes("1111111111"), "inspect");
  assert.equal(`${config.receiptSigningKey}`, "[redacted]");
});

test("PAID_ANSWER_RETENTION_HOURS: 24 h by default, 1 to 720", () => {
  assert.equal(loadConfig({}).paidAnswerRetentionMs, 24 * 3600_000);
  assert.equal(loadConfig({ PAID_ANSWER_RETENTION_HOURS: "2" }).paidAnswerRetentionMs, 2 * 3600_000);
  assert.throws(() => loadConfig({ PAID_ANSWER_RETENTION_HOURS: "0" }), /PAID_ANSWER_RETENTION_HOURS/);
});

test("without the setting the key is generated once into DATA_DIR, readable by the owner only", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-key-"));
  try {
    const first = receiptKey({ dataDir });
    const file = path.join(dataDir, SIGNING_KEY_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(first.source, "data-dir-created");
    // Another process (no in-memory cache) reads the same file and gets the same key.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-key-"));
    fs.copyFileSync(file, path.join(copy, SIGNING_KEY_FILE));
    const again = receiptKey({ dataDir: copy });
    assert.equal(again.source, "data-dir");
    assert.deepEqual(again.publicJwk, first.publicJwk);
    assert.ok(again.answerKey.equals(first.answerKey));
    fs.rmSync(copy, { recursive: true, force: true });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("the same setting gives every node the same public key, whatever its DATA_DIR", () => {
  const config = loadConfig({ RECEIPT_SIGNING_KEY: KEY });
  const a = receiptKey({ ...config, dataDir: "/nonexistent/a" });
  const b = receiptKey({ ...config, dataDir: "/nonexistent/b" });
  assert.equal(a.source, "setting");
  assert.deepEqual(a.publicJwk, b.publicJwk);
  assert.equal(a.publicJwk.crv, "Ed25519");
});
