// FACILITATOR_URL's ordered list, each entry's auth and the circuit settings: what is accepted, and one
// ConfigError naming the setting for what is not.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { CDP_FACILITATOR_URL } from "../src/x402/shared/cdp-credentials.ts";

const BASE = {
  DATA_DIR: "/tmp/paycall-facilitator-config",
  PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
};

function cdpSecret(): string {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return Buffer.concat([seed, pub]).toString("base64");
}

function failsOn(env: Record<string, string>, variable: string, pattern: RegExp) {
  assert.throws(
    () => loadConfig({ ...BASE, ...env }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.variable, variable);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

test("one URL works as it always did: the list has one entry, FACILITATOR_HEADERS are its headers", () => {
  const config = loadConfig({
    ...BASE,
    FACILITATOR_URL: "https://f.example/",
    FACILITATOR_HEADERS: '{"Authorization":"Bearer t"}',
  });
  const only = { kind: "remote", url: "https://f.example", headers: { Authorization: "Bearer t" } };
  assert.deepEqual(config.facilitators, [only]);
  assert.deepEqual(config.facilitator, only);
  assert.deepEqual(config.facilitatorHealth, {
    failureThreshold: 5,
    openMs: 30_000,
    supportedRefreshMs: 300_000,
  });
});

test("an ordered list: URLs, `local` and `cdp`, each with its own headers and the CDP key on Coinbase's host", () => {
  const config = loadConfig({
    ...BASE,
    NETWORKS: "base-sepolia",
    FACILITATOR_URL: "https://a.example, cdp ,local,https://b.example/x402",
    FACILITATOR_HEADERS_1: '{"X-Key":"a"}',
    FACILITATOR_HEADERS_4: '{"X-Key":"b"}',
    CDP_API_KEY_ID: "organizations/0/apiKeys/k",
    CDP_API_KEY_SECRET: cdpSecret(),
    FACILITATOR_FAILURE_THRESHOLD: "3",
    FACILITATOR_OPEN_MS: "2000",
    FACILITATOR_SUPPORTED_REFRESH_MS: "60000",
  });
  const [a, cdp, local, b] = config.facilitators;
  assert.deepEqual(a, { kind: "remote", url: "https://a.example", headers: { "X-Key": "a" } });
  assert.equal(cdp?.kind === "remote" && cdp.url, CDP_FACILITATOR_URL);
  assert.ok(cdp?.kind === "remote" && cdp.cdp, "the CDP key signs Coinbase's entry");
  assert.deepEqual(local, { kind: "local" });
  assert.deepEqual(b, { kind: "remote", url: "https://b.example/x402", headers: { "X-Key": "b" } });
  assert.deepEqual(config.facilitatorHealth, {
    failureThreshold: 3,
    openMs: 2000,
    supportedRefreshMs: 60_000,
  });
});

test("a single CDP-compatible URL is signed with the CDP key, whatever its host", () => {
  const config = loadConfig({
    ...BASE,
    FACILITATOR_URL: "https://cdp-compatible.example",
    CDP_API_KEY_ID: "organizations/0/apiKeys/k",
    CDP_API_KEY_SECRET: cdpSecret(),
  });
  assert.ok(config.facilitator.kind === "remote" && config.facilitator.cdp);
});

test("bad lists and misplaced settings: a ConfigError naming the setting", () => {
  failsOn({ FACILITATOR_URL: "https://a.example,,https://b.example" }, "FACILITATOR_URL", /empty entry/);
  failsOn({ FACILITATOR_URL: "https://a.example,https://a.example/" }, "FACILITATOR_URL", /twice/);
  failsOn({ FACILITATOR_URL: "https://a.example,ftp://b.example" }, "FACILITATOR_URL", /http\(s\) URL/);
  failsOn({ FACILITATOR: "cdp", FACILITATOR_URL: "https://a.example" }, "FACILITATOR_URL", /list `cdp`/);
  failsOn({ FACILITATOR_URL: "cdp,https://a.example" }, "CDP_API_KEY_ID", /required/);
  failsOn(
    { FACILITATOR_URL: "https://a.example,https://b.example", FACILITATOR_HEADERS: "{}" },
    "FACILITATOR_HEADERS",
    /FACILITATOR_HEADERS_<n>/,
  );
  failsOn(
    { FACILITATOR_URL: "https://a.example,local", FACILITATOR_HEADERS_2: "{}" },
    "FACILITATOR_HEADERS_2",
    /local facilitator/,
  );
  failsOn(
    { FACILITATOR_URL: "https://a.example,https://b.example", FACILITATOR_HEADERS_3: "{}" },
    "FACILITATOR_HEADERS_3",
    /no entry 3/,
  );
  failsOn(
    { FACILITATOR_URL: "https://a.example", FACILITATOR_HEADERS: "{}", FACILITATOR_HEADERS_1: "{}" },
    "FACILITATOR_HEADERS_1",
    /both name the same facilitator/,
  );
  failsOn(
    { FACILITATOR_URL: "https://a.example,https://b.example", FACILITATOR_HEADERS_2: "[1]" },
    "FACILITATOR_HEADERS_2",
    /JSON object/,
  );
  failsOn(
    {
      FACILITATOR_URL: "https://a.example,https://b.example",
      CDP_API_KEY_ID: "organizations/0/apiKeys/k",
      CDP_API_KEY_SECRET: cdpSecret(),
    },
    "CDP_API_KEY_ID",
    /Coinbase's host/,
  );
  failsOn({ FACILITATOR_FAILURE_THRESHOLD: "0" }, "FACILITATOR_FAILURE_THRESHOLD", /integer from 1/);
  failsOn({ FACILITATOR_OPEN_MS: "soon" }, "FACILITATOR_OPEN_MS", /integer/);
});

test("a remote entry anywhere in the list asks for the pay-to addresses; the local one alone does not", () => {
  assert.throws(
    () => loadConfig({ DATA_DIR: "/tmp/x", FACILITATOR_URL: "local,https://a.example" }),
    (e: unknown) => e instanceof ConfigError && e.variable === "PAY_TO_EVM",
  );
  failsOn(
    {
      NETWORKS: "solana",
      FACILITATOR_URL: "local,https://a.example",
      PAY_TO_EVM: "0x1111111111111111111111111111111111111111",
    },
    "PAY_TO_SOLANA",
    /remote/,
  );
  assert.equal(
    loadConfig({ DATA_DIR: "/tmp/x", NETWORKS: "solana", FACILITATOR_URL: "local" }).payTo.solana,
    undefined,
  );
});
