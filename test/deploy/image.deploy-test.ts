// The container image, built from the Dockerfile with podman and run: what an operator gets from `docker run`.
// Skipped, with the reason, where podman is missing or the base image cannot be made (.ci/container-base.sh).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { creditedBuyer, paidCall } from "./paid-call.ts";
import { Engine, freeLoopbackPort, IMAGE, type Podman, repoRoot, waitForOk } from "./podman.ts";

const container = `paycall-image-test-${process.pid}`;
const volume = `${container}-data`;

const engine = new Engine();
let baseUrl = "";

before(
  async () => {
    const podman = await engine.start();
    if (!podman) return;
    const port = await freeLoopbackPort();
    baseUrl = `http://127.0.0.1:${port}`;
    await podman(["volume", "create", volume]);
    await podman([
      ...["run", "--detach", "--name", container, "--network", "slirp4netns"],
      ...["--publish", `127.0.0.1:${port}:4021`, "--volume", `${volume}:/data`],
      ...["--env", "UPSTREAMS=replay", "--env", `PUBLIC_URL=${baseUrl}`],
      IMAGE,
    ]);
    const seconds = await waitForOk(`${baseUrl}/health`, 90_000);
    console.log(`/health answered ${seconds.toFixed(1)} s after podman run`);
  },
  { timeout: 45 * 60_000 },
);

// The image and its build cache stay in the private storage, so the next build reuses the `npm ci` layer.
after(async () => {
  await engine.podman?.(["rm", "--force", "--time", "0", container]).catch(() => {});
  await engine.podman?.(["volume", "rm", "--force", volume]).catch(() => {});
});

const exec = (p: Podman, ...command: string[]) => p(["exec", container, ...command]);

test("/health answers on the published port", async (t) => {
  if (!engine.for(t)) return;
  const response = await fetch(`${baseUrl}/health`);
  assert.equal(response.status, 200);
  const health = (await response.json()) as { ok: boolean; mode: Record<string, string> };
  assert.equal(health.ok, true);
  assert.deepEqual(health.mode, { facilitator: "local", upstreams: "replay", store: "sqlite" });
});

test("a paid call settles with the embedded local facilitator", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  const buyer = await creditedBuyer(p, container);
  const body = (await paidCall(buyer, `${baseUrl}/v1/macro/ecb/fx?pair=USD`)) as { quote: string };
  assert.equal(body.quote, "USD");
});

test("the service runs as the image's non-root user", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  assert.equal((await p(["image", "inspect", "--format", "{{.Config.User}}", IMAGE])).trim(), "node");
  const status = await exec(p, "cat", "/proc/1/status");
  const uids = status.match(/^Uid:\s+(.*)$/m)?.[1]?.split(/\s+/);
  assert.deepEqual(uids, ["1000", "1000", "1000", "1000"], "real, effective, saved and fs uid of PID 1");
  assert.match(await exec(p, "cat", "/proc/1/cmdline"), /dist\/src\/main\.js\0serve/);
});

test("the data volume belongs to that user and paycall's files in it are 0600", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  assert.equal((await exec(p, "stat", "-c", "%u:%g %a", "/data")).trim(), "1000:1000 700");
  // Every file: the store and the keys.
  const listing = await exec(p, "find", "/data", "-type", "f", "-printf", "%P %u %m\\n");
  const files = new Map(
    listing
      .trim()
      .split("\n")
      .map((line) => [line.split(" ")[0], line]),
  );
  for (const name of ["paycall.sqlite", "receipt-signing.key", "dev-pay-to.json"]) {
    assert.ok(files.has(name), `${name} in /data (${[...files.keys()].join(", ")})`);
  }
  for (const [name, line] of files) assert.equal(line, `${name} node 600`);
});

test("the image's HEALTHCHECK is kept and reports healthy", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  const check = JSON.parse(await p(["image", "inspect", "--format", "{{json .Config.Healthcheck}}", IMAGE]));
  assert.ok(check?.Test?.join(" ").includes("/ready"), JSON.stringify(check));
  // Without systemd podman cannot schedule the check: run it as the timer would.
  await p(["healthcheck", "run", container]);
  assert.equal((await p(["inspect", "--format", "{{.State.Health.Status}}", container])).trim(), "healthy");
});

test("the image holds no test code, dev dependencies, secrets or data", async (t) => {
  const p = engine.for(t);
  if (!p) return;
  const strays = await exec(
    p,
    ...["find", "/app", "(", "-path", "/app/test", "-o", "-path", "/app/bench", "-o", "-name", "*.test.ts"],
    ...[
      "-o",
      "-name",
      "*.test-helper.ts",
      "-o",
      "-name",
      ".env*",
      "-o",
      "-name",
      "*.key",
      "-o",
      "-name",
      "*.pem",
    ],
    ...["-o", "-name", "*.sqlite*", "-o", "-name", ".git", "-o", "-path", "/app/data", ")", "-print"],
  );
  assert.equal(strays.trim(), "", "test code, secrets or data in /app");

  const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  const devOnly = Object.entries(lock.packages)
    .filter(([, entry]) => entry.dev || entry.devOptional)
    .map(([where]) => where);
  for (const name of ["typescript", "@biomejs/biome", "playwright-core", "autocannon"]) {
    assert.ok(devOnly.includes(`node_modules/${name}`), `${name} is a dev dependency in the lockfile`);
  }
  const present = await exec(
    p,
    "sh",
    "-c",
    'cd /app && for p; do [ -e "$p" ] && echo "$p"; done; true',
    "sh",
    ...devOnly,
  );
  assert.equal(present.trim(), "", "dev dependencies in the image");
  assert.ok(
    (await exec(p, "ls", "/app/node_modules/hono/package.json")).trim(),
    "production dependencies present",
  );

  // What the image itself holds in the volume's place (a fresh anonymous volume is a copy of it): nothing.
  const imageData = await p(["run", "--rm", "--network", "none", "--entrypoint", "ls", IMAGE, "-A", "/data"]);
  assert.equal(imageData.trim(), "", "DATA_DIR content baked into the image");
});
