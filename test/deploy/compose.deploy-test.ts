// compose.yaml read as Compose reads it (YAML with merge keys, ${VAR} interpolation) and checked against what
// paycall, the Dockerfile and deploy/Caddyfile expect. Compose itself does not run here (none is installed);
// cluster.deploy-test.ts runs its paycall services with podman.
import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../src/config.ts";
import {
  environmentOf,
  imageEnv,
  operatorEnv,
  paycallServices,
  readRepoFile as read,
  services,
} from "./compose-file.ts";

test("compose.yaml has PostgreSQL, two API nodes, a worker and the proxy, built from the Dockerfile", () => {
  assert.deepEqual(Object.keys(services).sort(), ["api-1", "api-2", "postgres", "proxy", "worker"]);
  const roles = Object.fromEntries(
    paycallServices.map(([name, service]) => [name, service.environment?.ROLE]),
  );
  assert.deepEqual(roles, { "api-1": "serve", "api-2": "serve", worker: "worker" });
});

test("every paycall service's environment is a configuration paycall accepts, shared where it must be", () => {
  const configs = paycallServices.map(([name, service]) => {
    const env = { ...imageEnv(), ...environmentOf(service) };
    for (const key of Object.keys(service.environment ?? {})) {
      assert.match(
        read("src/config.ts"),
        new RegExp(`"${key}"`),
        `${name} sets ${key}, which paycall never reads`,
      );
    }
    return { name, config: loadConfig(env) };
  });
  for (const { name, config } of configs) {
    assert.equal(config.database.kind, "postgres", name);
    assert.equal(config.facilitator.kind, "local", `${name}: the default is the local facilitator`);
    assert.ok(config.receiptSigningKey, `${name} has the shared receipt signing key`);
    assert.equal(config.payTo.evm, operatorEnv.PAY_TO_EVM, name);
    assert.equal(
      config.publicUrl,
      configs[0]?.config.publicUrl,
      `${name}: every node has the same PUBLIC_URL`,
    );
    assert.equal(config.trustProxy, true, `${name} is behind the proxy`);
  }
});

test("the operator must set the pay-to address and the signing key: Compose refuses to start without them", () => {
  const [, api] = paycallServices[0] ?? [];
  assert.ok(api);
  assert.throws(
    () => environmentOf(api, { RECEIPT_SIGNING_KEY: operatorEnv.RECEIPT_SIGNING_KEY }),
    /^Error: PAY_TO_EVM/,
  );
  assert.throws(
    () => environmentOf(api, { PAY_TO_EVM: operatorEnv.PAY_TO_EVM }),
    /^Error: RECEIPT_SIGNING_KEY/,
  );
});

test("the nodes reach the compose PostgreSQL, and start only once it is healthy", () => {
  const postgres = services.postgres;
  assert.ok(postgres, "a postgres service");
  assert.ok(postgres.healthcheck?.test.join(" ").includes("pg_isready"), "PostgreSQL has a healthcheck");
  const db = environmentOf(postgres);
  for (const [name, service] of paycallServices) {
    const url = new URL(environmentOf(service).DATABASE_URL ?? "");
    assert.equal(url.hostname, "postgres", name);
    assert.deepEqual(
      [url.username, decodeURIComponent(url.password), url.pathname.slice(1)],
      [db.POSTGRES_USER, db.POSTGRES_PASSWORD, db.POSTGRES_DB],
      name,
    );
    assert.deepEqual(service.depends_on, { postgres: { condition: "service_healthy" } }, name);
  }
});

test("Compose waits for a node's drain before killing it", () => {
  for (const [name, service] of paycallServices) {
    const config = loadConfig({ ...imageEnv(), ...environmentOf(service) });
    const grace = Number(service.stop_grace_period?.match(/^(\d+)s$/)?.[1]);
    const drainSeconds = (config.shutdownDelayMs + config.shutdownGraceMs) / 1000;
    assert.ok(
      grace > drainSeconds,
      `${name}: stop_grace_period ${grace}s must exceed the ${drainSeconds}s drain`,
    );
  }
});

test("the proxy's Caddyfile is in the repository and sends to the API nodes on the image's port", () => {
  const mount = services.proxy?.volumes?.find((volume) => volume.endsWith(":/etc/caddy/Caddyfile:ro"));
  assert.ok(mount, "the proxy mounts a Caddyfile");
  const caddyfile = read(mount.split(":")[0] ?? "");
  const upstreams = caddyfile
    .match(/reverse_proxy ([^{\n]+)/)?.[1]
    ?.trim()
    .split(/\s+/);
  const serving = paycallServices.filter(([, service]) => service.environment?.ROLE === "serve");
  assert.deepEqual(
    upstreams,
    serving.map(([name]) => `${name}:${imageEnv().PORT}`),
  );
  assert.match(caddyfile, /health_uri \/ready/);
});
