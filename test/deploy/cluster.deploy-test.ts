// compose.yaml's paycall services (two API nodes and a worker, with the environment Compose gives them) run
// from the image with podman, on a scratch database of the machine's PostgreSQL, and paid through each API
// node. This stands in for `docker compose up`, which cannot run here: no Compose is installed and no registry
// serves the postgres and caddy images, so the nodes share the host's network and nothing sits in front of them.
// Skipped, with the reason, without podman, the base image or a PostgreSQL that lets it create a database.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { pgAdmin, pgAdminUrl } from "../pg-admin.ts";
import { environmentOf, operatorEnv, paycallServices } from "./compose-file.ts";
import { creditedBuyer, paidCall } from "./paid-call.ts";
import { Engine, freeLoopbackPort, IMAGE, waitForOk } from "./podman.ts";

const database = `paycall_cluster_${process.pid}`;

const engine = new Engine();
let databaseCreated = false;
const nodes: { service: string; container: string; url: string; role: string }[] = [];

before(
  async () => {
    const podman = await engine.start();
    if (!podman) return;
    try {
      await pgAdmin(`create database ${database}`);
      databaseCreated = true;
    } catch (error) {
      return engine.skip(`no PostgreSQL to run the cluster on (set PAYCALL_PG_ADMIN_URL): ${String(error)}`);
    }

    const databaseUrl = new URL(pgAdminUrl);
    databaseUrl.pathname = `/${database}`;
    const ports = await Promise.all(paycallServices.map(() => freeLoopbackPort()));
    // Every node has the same PUBLIC_URL, as behind Compose's proxy; here the first API node stands for it.
    const publicUrl = `http://127.0.0.1:${ports[0]}`;
    for (const [index, [service, definition]] of paycallServices.entries()) {
      const env: Record<string, string> = {
        ...environmentOf(definition, { ...operatorEnv, UPSTREAMS: "replay", PUBLIC_URL: publicUrl }),
        DATABASE_URL: databaseUrl.toString(),
        HOST: "127.0.0.1",
        PORT: String(ports[index]),
      };
      const container = `paycall-cluster-test-${process.pid}-${service}`;
      const envArgs = Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]);
      await podman(["run", "--detach", "--name", container, "--network", "host", ...envArgs, IMAGE]);
      nodes.push({ service, container, url: `http://127.0.0.1:${ports[index]}`, role: env.ROLE ?? "all" });
    }
    await Promise.all(nodes.map((node) => waitForOk(`${node.url}/health`, 120_000)));
  },
  { timeout: 45 * 60_000 },
);

after(async () => {
  for (const node of nodes) {
    await engine.podman?.(["rm", "--force", "--volumes", "--time", "0", node.container]).catch(() => {});
  }
  if (databaseCreated) await pgAdmin(`drop database if exists ${database} with (force)`);
});

test("every node runs on the shared PostgreSQL, in the role compose.yaml gives it", async (t) => {
  if (!engine.for(t)) return;
  assert.deepEqual(
    nodes.map((node) => [node.service, node.role]),
    [
      ["api-1", "serve"],
      ["api-2", "serve"],
      ["worker", "worker"],
    ],
  );
  for (const node of nodes) {
    const health = (await (await fetch(`${node.url}/health`)).json()) as { mode: { store: string } };
    assert.equal(health.mode.store, "postgres", node.service);
    assert.equal((await fetch(`${node.url}/ready`)).status, 200, `${node.service} /ready`);
  }
});

test("a buyer credited once pays through each API node (one ledger, the worker fills the cache)", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  const apiNodes = nodes.filter((node) => node.role === "serve");
  const buyer = await creditedBuyer(p, apiNodes[0]?.container ?? "");
  for (const node of apiNodes) {
    const body = (await paidCall(buyer, `${node.url}/v1/macro/ecb/fx?pair=USD`)) as { quote: string };
    assert.equal(body.quote, "USD", node.service);
  }
});
