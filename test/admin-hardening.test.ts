// The operator routes against a guesser and a forger: failed sign-ins are limited per client, only the Bearer
// scheme opens them, a cookie POST must come from a page of this service, sessions expire after 12 hours and
// can all be revoked; the store's files are its owner's only.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { ADMIN_COOKIE_MAX_AGE_SEC, sessionCookie } from "../src/admin/auth.ts";
import { MAX_FAILURES } from "../src/admin/sign-in-limit.ts";
import { loadConfig } from "../src/config.ts";
import { openServiceStore } from "../src/service.ts";
import { startTestService, type TestService } from "./harness.ts";
import { TEST_DATABASE_URL } from "./test-store.ts";

const TOKEN = "admin-token-for-hardening-tests-0123";
let service: TestService;

before(async () => {
  service = await startTestService({ ADMIN_TOKEN: TOKEN, TRUST_PROXY: "true" });
});
after(() => service.stop());

const cookieOf = (issuedAtMs = Date.now()) =>
  (sessionCookie(TOKEN, service.config.publicUrl, issuedAtMs).split(";")[0] as string).trim();

function get(pathname: string, headers: Record<string, string>) {
  return fetch(`${service.url}${pathname}`, { headers, redirect: "manual" });
}

test("failed sign-ins are limited per client: past the limit even the right token is refused", async () => {
  const guesser = { "x-forwarded-for": "203.0.113.90" };
  for (let i = 0; i < MAX_FAILURES; i++) {
    const response = await get("/admin/stats", {
      ...guesser,
      authorization: `Bearer wrong-${i}-0123456789abcdef`,
    });
    assert.equal(response.status, 404);
  }
  const link = await get(`/admin?token=${TOKEN}`, guesser);
  assert.equal(link.status, 429, "the right token from a client past its failures");
  assert.ok(Number(link.headers.get("retry-after")) > 60);
  assert.equal((await get("/metrics", { ...guesser, authorization: `Bearer ${TOKEN}` })).status, 429);
  const other = await get("/admin/stats", {
    "x-forwarded-for": "203.0.113.91",
    authorization: `Bearer ${TOKEN}`,
  });
  assert.equal(other.status, 200, "another client is not affected");
});

test("only the Bearer scheme: the bare token in Authorization is refused", async () => {
  const client = { "x-forwarded-for": "203.0.113.92" };
  assert.equal((await get("/admin/stats", { ...client, authorization: TOKEN })).status, 404);
  assert.equal((await get("/admin/stats", { ...client, authorization: `Basic ${TOKEN}` })).status, 404);
  assert.equal((await get("/admin/stats", { ...client, authorization: `Bearer ${TOKEN}` })).status, 200);
});

test("a cookie POST needs a same-origin Origin or Referer", async () => {
  const cookie = cookieOf();
  const post = (headers: Record<string, string>) =>
    fetch(`${service.url}/admin/refunds/987654321`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-forwarded-for": "203.0.113.93", ...headers },
      body: JSON.stringify({ transaction: `0x${"ab".repeat(32)}` }),
    });
  const bare = await post({});
  assert.equal(bare.status, 404);
  assert.equal(
    ((await bare.json()) as { message: string }).message,
    "No such route.",
    "refused, not looked up",
  );
  assert.equal((await post({ referer: "https://elsewhere.example/admin" })).status, 404);
  const sameSite = await post({ referer: `${service.url}/admin` });
  assert.equal(sameSite.status, 404);
  assert.match(((await sameSite.json()) as { message: string }).message, /No ledger row 987654321/);
  const byOrigin = await post({ origin: new URL(service.url).origin });
  assert.match(((await byOrigin.json()) as { message: string }).message, /No ledger row/);
});

test("sessions expire after 12 hours and can all be revoked", async () => {
  const client = { "x-forwarded-for": "203.0.113.94" };
  const stale = cookieOf(Date.now() - ADMIN_COOKIE_MAX_AGE_SEC * 1000 - 1000);
  assert.equal((await get("/admin/stats", { ...client, cookie: stale })).status, 404, "expired");
  const fresh = cookieOf(Date.now() - 1000);
  assert.equal((await get("/admin/stats", { ...client, cookie: fresh })).status, 200);

  const revoke = await fetch(`${service.url}/admin/sessions/revoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...client },
  });
  assert.equal(revoke.status, 200);
  assert.equal(((await revoke.json()) as { revoked: boolean }).revoked, true);
  assert.equal((await get("/admin/stats", { ...client, cookie: fresh })).status, 404, "revoked");

  const link = await get(`/admin?token=${TOKEN}`, client);
  assert.equal(link.status, 303);
  const signedIn = (link.headers.get("set-cookie")?.split(";")[0] ?? "").trim();
  assert.equal(
    (await get("/admin/stats", { ...client, cookie: signedIn })).status,
    200,
    "a new sign-in works",
  );
});

test("the data directory is 0700 and the store's files 0600", {
  skip: TEST_DATABASE_URL !== undefined,
}, async () => {
  for (const name of fs.readdirSync(service.dataDir)) {
    const mode = fs.statSync(path.join(service.dataDir, name)).mode & 0o777;
    assert.equal(mode, 0o600, `${name}: ${mode.toString(8)}`);
  }
  assert.ok(fs.existsSync(path.join(service.dataDir, "paycall.sqlite")));
  // A DATA_DIR paycall creates, and one that existed readable by all (a volume made by hand).
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-perms-"));
  try {
    const existing = path.join(parent, "existing");
    fs.mkdirSync(existing, { mode: 0o755 });
    fs.chmodSync(existing, 0o755);
    for (const dataDir of [path.join(parent, "created", "data"), existing]) {
      const store = await openServiceStore(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }), []);
      await store.close();
      assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700, dataDir);
      assert.equal(fs.statSync(path.join(dataDir, "paycall.sqlite")).mode & 0o777, 0o600);
    }
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
