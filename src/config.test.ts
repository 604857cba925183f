import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig, upstreamBaseUrl } from "./config.ts";

function failsOn(env: Record<string, string>, variable: string, pattern?: RegExp) {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.variable, variable);
      assert.ok(error.message.startsWith(`${variable}: `));
      assert.ok(!error.message.includes("\n"), "one line");
      if (pattern) assert.match(error.message, pattern);
      return true;
    },
  );
}

test("defaults: port 4021, base network, local facilitator, live upstreams, SQLite in DATA_DIR", () => {
  const config = loadConfig({ DATA_DIR: "/tmp/x" });
  assert.equal(config.port, 4021);
  assert.deepEqual(
    config.networks.map((n) => n.caip2),
    ["eip155:8453"],
  );
  assert.equal(config.facilitator.kind, "local");
  assert.equal(config.upstreams, "live");
  assert.deepEqual(config.database, { kind: "sqlite", file: "/tmp/x/paycall.sqlite" });
  assert.equal(config.publicUrl, "http://localhost:4021");
  assert.deepEqual(config.workerConcurrency, { fetch: 4, warm: 2, bulk: 1 });
  assert.equal(config.workerLanes, 3);
  assert.equal(config.jobLeaseMs, 60_000);
});

test("worker lanes: slots per lane, and one line of every job", () => {
  const config = loadConfig({
    WORKER_FETCH_CONCURRENCY: "8",
    WORKER_WARM_CONCURRENCY: "0",
    WORKER_BULK_CONCURRENCY: "2",
    WORKER_LANES: "1",
  });
  assert.deepEqual(config.workerConcurrency, { fetch: 8, warm: 0, bulk: 2 });
  assert.equal(config.workerLanes, 1);
});

test("NETWORKS maps names to CAIP-2 ids and rejects unknown or repeated ones", () => {
  const config = loadConfig({
    NETWORKS: "base, base-sepolia,solana,solana-devnet",
    FACILITATOR_URL: "https://facilitator.example",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    PAY_TO_SOLANA: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  });
  assert.deepEqual(
    config.networks.map((n) => n.caip2),
    [
      "eip155:8453",
      "eip155:84532",
      "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
      "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    ],
  );
  failsOn({ NETWORKS: "base,polygon" }, "NETWORKS", /polygon/);
  failsOn({ NETWORKS: "base,base" }, "NETWORKS", /twice/);
});

test("pay-to addresses are validated and required for the networks chosen", () => {
  failsOn({ PAY_TO_EVM: "0x123" }, "PAY_TO_EVM");
  failsOn({ FACILITATOR_URL: "https://f.example" }, "PAY_TO_EVM", /required/);
  failsOn({ NETWORKS: "solana", FACILITATOR_URL: "https://f.example" }, "PAY_TO_SOLANA", /required/);
  failsOn({ PAY_TO_SOLANA: "not-base58-0OIl" }, "PAY_TO_SOLANA");
  // The local facilitator settles Solana too; without PAY_TO_SOLANA a development pay-to is made at start.
  const local = loadConfig({ DATA_DIR: "/tmp/x", NETWORKS: "base,solana" });
  assert.deepEqual(
    local.networks.map((n) => n.name),
    ["base", "solana"],
  );
  assert.equal(local.payTo.solana, undefined);
});

test("every other variable names itself when wrong", () => {
  failsOn({ PORT: "http" }, "PORT");
  failsOn({ PORT: "70000" }, "PORT");
  failsOn({ PUBLIC_URL: "ftp://x" }, "PUBLIC_URL");
  failsOn({ FACILITATOR_URL: "not a url" }, "FACILITATOR_URL");
  failsOn(
    {
      FACILITATOR_URL: "https://f.example",
      PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
      FACILITATOR_HEADERS: "Bearer x",
    },
    "FACILITATOR_HEADERS",
  );
  failsOn({ FACILITATOR_HEADERS: "{}" }, "FACILITATOR_HEADERS", /only used with FACILITATOR_URL/);
  failsOn({ UPSTREAMS: "recorded" }, "UPSTREAMS", /live, replay/);
  failsOn({ LOG_LEVEL: "loud" }, "LOG_LEVEL");
  failsOn({ SALE_DOMAIN: "not a domain" }, "SALE_DOMAIN");
  failsOn({ BUYER_PRIVATE_KEY: "0x1234" }, "BUYER_PRIVATE_KEY");
  failsOn({ ADMIN_TOKEN: "short" }, "ADMIN_TOKEN");
  failsOn({ DATABASE_URL: "mysql://x" }, "DATABASE_URL");
  failsOn({ DATABASE_URL: "postgres://localhost/x", DATABASE_SCHEMA: "Bad-Name" }, "DATABASE_SCHEMA");
  failsOn({ DATABASE_SCHEMA: "paycall" }, "DATABASE_SCHEMA", /only used with a postgres/);
  failsOn({ DATABASE_URL: "postgres://localhost/x", DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE");
  failsOn({ ROLE: "api" }, "ROLE", /all, serve, worker/);
  failsOn({ JOB_LEASE_MS: "10" }, "JOB_LEASE_MS");
  failsOn({ WORKER_FETCH_CONCURRENCY: "0" }, "WORKER_FETCH_CONCURRENCY");
  failsOn({ WORKER_BULK_CONCURRENCY: "65" }, "WORKER_BULK_CONCURRENCY");
  failsOn({ WORKER_WARM_CONCURRENCY: "two" }, "WORKER_WARM_CONCURRENCY");
  failsOn({ WORKER_LANES: "2" }, "WORKER_LANES", /3, 1/);
  failsOn({ TRUST_PROXY: "maybe" }, "TRUST_PROXY");
});

test("facilitator headers and upstream base URLs", () => {
  const config = loadConfig({
    FACILITATOR_URL: "https://f.example/",
    PAY_TO_EVM: "0x00000000000000000000000000000000000000aa",
    FACILITATOR_HEADERS: '{"Authorization":"Bearer t"}',
    ECB_BASE_URL: "http://127.0.0.1:9999/",
  });
  assert.deepEqual(config.facilitator, {
    kind: "remote",
    url: "https://f.example",
    headers: { Authorization: "Bearer t" },
  });
  assert.equal(upstreamBaseUrl(config, "ecb", "https://data-api.ecb.europa.eu"), "http://127.0.0.1:9999");
  assert.equal(upstreamBaseUrl(config, "fred", "https://api.stlouisfed.org"), "https://api.stlouisfed.org");
});

test("METRICS_PORT and the unpaid-request limits", () => {
  const defaults = loadConfig({});
  assert.equal(defaults.metricsPort, undefined);
  assert.equal(defaults.rateLimitPerMin, 600);
  assert.equal(defaults.rateLimitExpensivePerMin, 60);
  const set = loadConfig({
    METRICS_PORT: "9464",
    RATE_LIMIT_PER_MIN: "0",
    RATE_LIMIT_EXPENSIVE_PER_MIN: "10",
  });
  assert.equal(set.metricsPort, 9464);
  assert.equal(set.rateLimitPerMin, 0);
  assert.equal(set.rateLimitExpensivePerMin, 10);
  failsOn({ METRICS_PORT: "metrics" }, "METRICS_PORT");
  failsOn({ METRICS_PORT: "70000" }, "METRICS_PORT");
  failsOn({ PORT: "9464", METRICS_PORT: "9464" }, "METRICS_PORT", /differ from PORT/);
  failsOn({ RATE_LIMIT_PER_MIN: "-1" }, "RATE_LIMIT_PER_MIN");
  failsOn({ RATE_LIMIT_EXPENSIVE_PER_MIN: "lots" }, "RATE_LIMIT_EXPENSIVE_PER_MIN");
});
