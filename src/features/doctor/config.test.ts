import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../config.ts";
import { canonicalHostPort, loadDoctorConfig } from "./config.ts";

const load = (env: Record<string, string>) => loadDoctorConfig(loadConfig(env));

test("defaults: no buyer wallet, no allow-list, 10 s and 1 MiB", () => {
  const settings = load({});
  assert.equal(settings.buyerPrivateKey, undefined);
  assert.equal(settings.allowHosts.size, 0);
  assert.equal(settings.fetchTimeoutMs, 10_000);
  assert.equal(settings.maxBodyBytes, 1_048_576);
});

test("the allow-list is read as canonical host:port pairs", () => {
  const settings = load({ DOCTOR_ALLOW_HOSTS: "127.0.0.1:4021, Seller.Internal:8443,[::1]:80" });
  assert.deepEqual([...settings.allowHosts], ["127.0.0.1:4021", "seller.internal:8443", "[::1]:80"]);
  assert.equal(canonicalHostPort("0x7f.1:80"), "127.0.0.1:80");
});

test("bad values are errors naming the variable", () => {
  const cases: Array<[string, string]> = [
    ["DOCTOR_BUYER_PRIVATE_KEY", "0x1234"],
    ["DOCTOR_ALLOW_HOSTS", "127.0.0.1"],
    ["DOCTOR_ALLOW_HOSTS", "http://a:1/path"],
    ["DOCTOR_ALLOW_HOSTS", "a:70000"],
    ["DOCTOR_FETCH_TIMEOUT_MS", "0"],
    ["DOCTOR_MAX_BODY_BYTES", "lots"],
  ];
  for (const [variable, value] of cases) {
    assert.throws(
      () => load({ [variable]: value }),
      (error: unknown) => error instanceof ConfigError && error.variable === variable,
      `${variable}=${value}`,
    );
  }
});
