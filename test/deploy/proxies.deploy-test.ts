// paycall behind the reverse proxies operators put in front of it (nginx, Caddy, HAProxy, Apache, as Debian
// ships them) and under the shipped systemd unit. Each proxy runs for real, as a child process on loopback:
// with nginx's defaults (the 402's headers must fit its 4 KB buffer) and with each config in deploy/ (TLS
// where the file has it), every paid route's 402 must arrive whole, a real x402 buyer must be able to pay, and
// the client paycall counts must be the buyer's own address, whatever X-Forwarded-For the buyer sends.
// Run with `npm run test:deploy` (also one of `npm test`'s suites); a missing proxy is skipped with a message naming its
// Debian package, and fails under CI=true (.ci/prepare-deploy.sh installs them).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { Agent, setGlobalDispatcher, fetch as undiciFetch } from "undici";
import { buildJs } from "../../src/build-js.ts";
import { creditWallet } from "../../src/x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../src/x402/shared/networks.ts";
import { newBuyer, payingFetch, startListeningService, type TestService } from "../harness.ts";
import { eventually } from "../node-process.ts";
import {
  defaultNginx,
  PROXIES,
  type ProxyKind,
  type ProxySetup,
  type SetupContext,
  SHIPPED,
} from "./proxy-configs.ts";
import {
  freePort,
  locateBinary,
  type RunningProxy,
  selfSignedCertificate,
  startProxy,
  substitute,
} from "./proxy-servers.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-proxies-"));
const cert = selfSignedCertificate(dir);
// Every fetch of this file (the x402 buyer's included) trusts the throwaway certificate the proxies present.
setGlobalDispatcher(new Agent({ connect: { ca: cert.certPem } }));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The chat's 402 tokenises the prompt: its own unpaid limit, kept low here to see whom paycall counts. */
const CHAT_LIMIT = 3;
const SERVICE_ENV = {
  TRUST_PROXY: "true",
  PUBLIC_URL: "https://api.example.com",
  // Both networks: the largest 402s and payment signatures paycall sends.
  NETWORKS: "base,base-sepolia",
  RATE_LIMIT_EXPENSIVE_PER_MIN: String(CHAT_LIMIT),
};

/** The fields of a /catalog.json product the sweep reads. */
type CatalogProduct = { method: string; path: string; mode: string } & {
  example?: Record<string, string>;
  exampleBody?: unknown;
};

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

let lastAddress = 20;
/** A loopback address no request of this file has come from yet: a client paycall has not counted. */
function freshAddress(): string {
  lastAddress += 1;
  return `127.0.0.${lastAddress}`;
}

/** A buyer connecting from its own loopback address (127.0.0.0/8 is all loopback on Linux). */
function clientAt(localAddress: string): Fetch {
  const dispatcher = new Agent({ localAddress, connect: { ca: cert.certPem } });
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}

function probes(product: CatalogProduct): Array<{ label: string; query: string; init: RequestInit }> {
  const post = product.method === "POST";
  const bare = { label: "bare", query: "", init: { method: product.method } };
  if (post) {
    const body = JSON.stringify(product.exampleBody ?? {});
    const init = { method: "POST", body, headers: { "content-type": "application/json" } };
    return [bare, { label: "example", query: "", init }];
  }
  if (!product.example) return [bare];
  return [bare, { label: "example", query: `?${new URLSearchParams(product.example)}`, init: bare.init }];
}

/**
 * Every paid route's bare URL and example through `base`: a bare URL must answer 402 with a PAYMENT-REQUIRED
 * that decodes; an example URL must answer what paycall answers it directly (402 with its header, or the 404
 * of an item not collected yet). Returns what went wrong, one line a URL.
 */
async function sweepPaidRoutes(service: TestService, base: string, send: Fetch): Promise<string[]> {
  // paycall's own answers, asked from an address of their own so that they count against nobody else's limit.
  const direct = clientAt(freshAddress());
  const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as {
    products: CatalogProduct[];
  };
  const paid = catalog.products.filter((p) => p.mode === "paid");
  assert.ok(paid.length >= 70, `${paid.length} paid routes`);
  const problems: string[] = [];
  for (const product of paid) {
    for (const probe of probes(product)) {
      const where = `${product.method} ${product.path}${probe.query} (${probe.label})`;
      const own = await direct(`${service.url}${product.path}${probe.query}`, probe.init);
      await own.arrayBuffer();
      const expected = probe.label === "bare" ? 402 : own.status;
      const response = await send(`${base}${product.path}${probe.query}`, probe.init);
      const body = await response.text();
      if (response.status !== expected) {
        problems.push(`${where}: ${response.status} ${body.slice(0, 80).replace(/\s+/g, " ")}`);
        continue;
      }
      if (expected !== 402) continue;
      try {
        const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
        assert.equal(required.x402Version, 2);
        const networks = new Set(required.accepts.map((offer) => offer.network));
        assert.deepEqual([...networks].sort(), [NETWORKS.base.caip2, NETWORKS["base-sepolia"].caip2].sort());
        assert.ok(
          required.resource?.url.startsWith(`https://api.example.com${product.path}`),
          required.resource?.url,
        );
      } catch (error) {
        problems.push(`${where}: PAYMENT-REQUIRED ${String(error).slice(0, 120)}`);
      }
    }
  }
  return problems;
}

async function paidCallSettles(service: TestService, url: string, init?: RequestInit): Promise<void> {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "5");
  const response = await payingFetch(buyer)(url, init);
  const body = await response.text();
  assert.equal(response.status, 200, body.slice(0, 300));
  const receipt = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
  assert.equal(receipt.success, true);
  const rows = await service.store.ledger.list();
  const row = rows.find((r) => r.payer?.toLowerCase() === buyer.address.toLowerCase());
  assert.equal(row?.state, "settled", "the ledger row is settled");
  assert.equal(row?.transaction, receipt.transaction, "PAYMENT-RESPONSE names the settled transaction");
}

/** Rate limits count per UTC minute: start a counting test early in one, so it ends in the same minute. */
async function awayFromMinuteEdge(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 45) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
}

function chatProbe(send: Fetch, base: string, headers: Record<string, string> = {}): Promise<number> {
  return send(`${base}/v1/llm/chat`, { method: "POST", headers }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });
}

for (const kind of Object.keys(PROXIES) as ProxyKind[]) {
  const { binary, debianPackage, shippedFile } = PROXIES[kind];
  const found = locateBinary(binary, debianPackage);

  describe(`behind ${kind}`, { skip: "skip" in found ? found.skip : false }, () => {
    let service: TestService;
    const running: RunningProxy[] = [];

    async function start(build: (context: SetupContext) => Promise<ProxySetup>): Promise<ProxySetup> {
      const context: SetupContext = {
        binary: "path" in found ? found.path : binary,
        dir: fs.mkdtempSync(path.join(dir, `${kind}-`)),
        servicePort: Number(new URL(service.url).port),
        cert,
      };
      const setup = await build(context);
      const logFile = path.join(context.dir, "output.log");
      running.push(
        await startProxy(setup.argv, {
          readyUrl: `${setup.url}/health`,
          logFile,
          ...(setup.env && { env: setup.env }),
        }),
      );
      return setup;
    }

    before(async () => {
      service = await startListeningService(SERVICE_ENV);
      await service.worker.runWarmer("ecb.fx");
    });
    after(async () => {
      for (const proxy of running) await proxy.stop();
      await service?.stop();
    });

    if (kind === "nginx") {
      test("with Debian's defaults (no buffer settings), every paid route's 402 arrives whole", async () => {
        const proxy = await start(defaultNginx);
        const send = clientAt(freshAddress());
        const health = await send(`${proxy.url}/health`);
        assert.equal(health.status, 200, "a small answer passes: the proxy itself works");
        await health.arrayBuffer();
        assert.deepEqual(await sweepPaidRoutes(service, proxy.url, send), []);
      });
    }

    describe(`with deploy/${shippedFile}`, () => {
      let proxy: ProxySetup;
      before(async () => {
        proxy = await start(SHIPPED[kind]);
      });

      test("every paid route's bare URL and example answer as paycall does, 402s whole", async () => {
        assert.deepEqual(await sweepPaidRoutes(service, proxy.url, clientAt(freshAddress())), []);
      });

      test("a buyer pays a GET route: 200, PAYMENT-RESPONSE through the proxy, the ledger row settled", async () => {
        await paidCallSettles(service, `${proxy.url}/v1/macro/ecb/fx?pair=USD`);
      });

      test("a buyer pays the chat (POST, the largest PAYMENT-SIGNATURE) through the proxy", async () => {
        await paidCallSettles(service, `${proxy.url}/v1/llm/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "What does HTTP 402 mean?" }] }),
        });
      });

      test("a 24 KB PAYMENT-SIGNATURE reaches paycall, which takes up to 32 KB of headers", async () => {
        // The largest signature measured is 18.3 KB (test/payment-signature-size.test.ts: a client answering the
        // 402's JSON body), past nginx's and Apache's default header limits (8 KB).
        const headers = { "payment-signature": "A".repeat(24 * 1024) };
        const url = "/v1/macro/ecb/fx?pair=USD";
        const own = await fetch(`${service.url}${url}`, { headers });
        const through = await clientAt(freshAddress())(`${proxy.url}${url}`, { headers });
        assert.equal(through.status, own.status);
        assert.deepEqual(await through.json(), await own.json(), "paycall's own answer, not the proxy's");
      });

      test("paycall counts the buyer's own address, whatever X-Forwarded-For the buyer sends", async () => {
        await awayFromMinuteEdge();
        const [firstAddress, secondAddress] = [freshAddress(), freshAddress()];
        const [first, second] = [clientAt(firstAddress), clientAt(secondAddress)];
        for (let i = 0; i < CHAT_LIMIT; i++) assert.equal(await chatProbe(first, proxy.url), 402);
        assert.equal(await chatProbe(first, proxy.url), 429, "the first buyer is over the chat's limit");
        assert.equal(
          await chatProbe(first, proxy.url, { "x-forwarded-for": "198.51.100.7" }),
          429,
          "a forged X-Forwarded-For does not make the first buyer someone else",
        );
        assert.equal(
          await chatProbe(second, proxy.url, { "x-forwarded-for": firstAddress }),
          402,
          "another buyer is counted apart, even when it claims the first one's address",
        );
      });

      if (kind !== "caddy") {
        test("plain HTTP is redirected to https", async () => {
          const response = await fetch(`${proxy.redirectUrl}/v1/macro/ecb/fx?pair=USD`, {
            redirect: "manual",
          });
          assert.equal(response.status, 301);
          assert.match(
            response.headers.get("location") ?? "",
            /^https:\/\/[^/]+\/v1\/macro\/ecb\/fx\?pair=USD$/,
          );
        });
      }
    });
  });
}

describe("deploy/paycall.service", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  const unitDir = fs.mkdtempSync(path.join(dir, "unit-"));
  const dataDir = path.join(unitDir, "data");
  const envFile = path.join(unitDir, "paycall.env");
  // The unit as installed, with the install's paths pointing into this checkout and a scratch DATA_DIR.
  const unit = substitute(
    fs.readFileSync(path.join(root, "deploy/paycall.service"), "utf8"),
    [
      ["/opt/paycall", root],
      ["/var/lib/paycall", dataDir],
      ["/etc/paycall/paycall.env", envFile],
    ],
    "deploy/paycall.service",
  );
  const directives = (name: string) =>
    [...unit.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map((match) => (match[1] ?? "").trim());
  const [execStart] = directives("ExecStart");

  test("systemd-analyze verify finds nothing to report", async (t) => {
    const analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((file) => fs.existsSync(file));
    if (!analyze) {
      console.log("SKIPPED: systemd-analyze is not installed (Debian package systemd)");
      t.skip("systemd-analyze is not installed (Debian package systemd)");
      return;
    }
    fs.writeFileSync(envFile, "");
    const file = path.join(unitDir, "paycall.service");
    fs.writeFileSync(file, unit);
    const result = spawnSync(analyze, ["verify", file], { encoding: "utf8" });
    // verify exits 0 on unknown keys and bad values (it only warns): its output must be empty too.
    assert.equal(result.status, 0, result.stderr);
    assert.equal(`${result.stdout}${result.stderr}`.trim(), "");
  });

  test("ExecStart runs Node with the flags and environment `npm start` uses", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const start = (pkg.scripts.start ?? "").split(/\s+/);
    const nodeAt = start.indexOf("node");
    const unitArgs = (execStart ?? "").split(/\s+/);
    assert.equal(unitArgs[0], path.join(root, "node_modules/.bin/node"), "the Node npm installed");
    assert.deepEqual(unitArgs.slice(1), start.slice(nodeAt + 1));
    for (const assignment of start.slice(0, nodeAt)) {
      const [name, value] = assignment.split("=") as [string, string];
      const fallback = /^\$\{\w+:-(.*)\}$/.exec(value)?.[1] ?? value;
      assert.ok(directives("Environment").join(" ").split(/\s+/).includes(`${name}=${fallback}`), name);
    }
  });

  test("its ExecStart line, run as systemd runs it, serves paycall and stops cleanly on SIGTERM", async () => {
    // The JavaScript ExecStart runs, as `npm ci` (its prepare script) leaves it in the install.
    buildJs(["src"], path.join(root, "dist"));
    const port = await freePort();
    fs.mkdirSync(dataDir, { recursive: true });
    const env = Object.fromEntries(
      directives("Environment")
        .join(" ")
        .split(/\s+/)
        .map((assignment) => [
          assignment.slice(0, assignment.indexOf("=")),
          assignment.slice(assignment.indexOf("=") + 1),
        ]),
    );
    const [command, ...args] = (execStart ?? "").split(/\s+/) as [string, ...string[]];
    const child = spawn(command, args, {
      cwd: directives("WorkingDirectory")[0],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ...env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        UPSTREAMS: "replay",
        RUN_WARMERS: "false",
        LOG_LEVEL: "warn",
        TRUST_PROXY: "true",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      // A bound, not a wait: npm and a cold start share the machine with the other suites in CI.
      const health = await eventually(async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr}`);
        const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        return response?.status === 200 ? response.json() : undefined;
      }, 120_000);
      assert.ok(health, "/health answers");
    } finally {
      child.kill("SIGTERM");
    }
    assert.equal(await exited, 0, stderr);
  });
});
