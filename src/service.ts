// Starts paycall: store, products, HTTP server, payments and the worker; stops them in order.
import type http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { Migration } from "kysely/migration";
import { RateLimiter } from "./abuse/rate-limiter.ts";
import { buildApp } from "./app.ts";
import type { Family, HandlerContext } from "./catalog/product.ts";
import { type Config, ConfigError } from "./config.ts";
import { errorResponse } from "./errors.ts";
import { Worker } from "./jobs/worker.ts";
import { createLogger, type Logger } from "./log.ts";
import { releaseMemoryAfterBuilds, releaseMemorySoon } from "./memory-release.ts";
import { startObservability } from "./observability/index.ts";
import { paywallEvents } from "./observability/paywall-events.ts";
import { RequestIdResponse } from "./observability/request-id-response.ts";
import { FAMILIES } from "./products/index.ts";
import { ensurePrivateDir } from "./store/private-files.ts";
import { openStore, type Store } from "./store/store.ts";
import { loadRecordings, RecordingIndex } from "./upstream/recordings.ts";
import { UpstreamRegistry } from "./upstream/registry.ts";
import { LiveNodes } from "./x402/seller/live-nodes.ts";
import { Paywall } from "./x402/seller/paywall.ts";
import { createFacilitatorClient, createResourceServer } from "./x402/seller/resource-server.ts";

export const MAX_REQUEST_HEADER_BYTES = 32 * 1024;
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface Service {
  url: string;
  config: Config;
  store: Store;
  app: Hono;
  worker: Worker;
  ctx: HandlerContext;
  paywall: () => Paywall | undefined;
  /** Per-client limits on unpaid requests (src/abuse/). */
  rateLimits: RateLimiter;
  /** The loopback metrics server (METRICS_PORT). */
  metricsUrl?: string;
  /** Resolves once payments are ready (the resource server synced with the facilitator). */
  paymentsReady: Promise<void>;
  /** Stops at once (tests): the listener closes, the worker finishes its job, the store closes. */
  close: () => Promise<void>;
  /** SIGTERM: /ready turns 503, after readyDelayMs new requests stop, in-flight ones and the job finish. */
  shutdown: (options: { readyDelayMs: number; graceMs: number }) => Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  fetchImpl?: typeof fetch;
  /** Start the worker (jobs and warmers); default true. */
  worker?: boolean;
  /** Product families to serve instead of the built-in list (tests). */
  families?: Family[];
  /**
   * Hand the memory start, large index builds and warmer runs leave behind back to the system
   * (src/memory-release.ts): `serve` and the benches follow RELEASE_MEMORY; tests, which start hundreds of
   * services, leave it off.
   */
  releaseMemory?: boolean;
}

export function buildFamilies(config: Config): Family[] {
  return FAMILIES.map((factory) => factory(config));
}

export function familyMigrations(families: Family[]): Record<string, Migration> {
  return Object.assign({}, ...families.map((f) => f.migrations ?? {}));
}

/** The configured store with the schema of every family (commands outside `serve` open it this way too). */
export function openServiceStore(config: Config, families = buildFamilies(config)): Promise<Store> {
  // DATA_DIR holds the store and the receipt signing key: its owner's only.
  if (config.database.kind === "sqlite" && config.database.file.startsWith(config.dataDir + path.sep))
    ensurePrivateDir(config.dataDir, true);
  return openStore(config.database, familyMigrations(families));
}

function loopbackHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}

export async function startService(baseConfig: Config, options: StartOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(baseConfig.logLevel);
  const config: Config = { ...baseConfig, payTo: { ...baseConfig.payTo } };
  // The local facilitator's code (its exact-EVM verifier, the development wallets) is imported only when used.
  if (config.facilitator.kind === "local" && !config.payTo.evm) {
    const { devPayToWallet } = await import("./x402/facilitator/dev-wallets.ts");
    const wallet = devPayToWallet(config.dataDir);
    config.payTo.evm = wallet.address;
    // x402scan reads an origin signed by the pay-to key as proof that this host owns the address.
    if (config.ownershipProofs.length === 0) {
      const { ownershipProof } = await import("./x402/seller/ownership-proof.ts");
      config.ownershipProofs = [await ownershipProof(config.publicUrl, wallet.privateKey)];
    }
    log.warn(
      { payTo: wallet.address },
      "PAY_TO_EVM unset: using a development pay-to address (local facilitator only)",
    );
  }
  const families = options.families ?? buildFamilies(config);
  const disabledFamilies = families.filter((f) => f.unavailable);
  for (const family of disabledFamilies) {
    log.warn(
      { family: family.name, ...family.unavailable },
      `${family.name} disabled: ${family.unavailable?.reason} Fix: ${family.unavailable?.fix}`,
    );
  }
  const store = await openServiceStore(config, families);
  // Only replay mode answers from the recordings (about 1 MB once read); live mode leaves them on disk.
  const recordings =
    config.upstreams === "replay"
      ? new RecordingIndex(families.flatMap((f) => (f.recordingsDir ? loadRecordings(f.recordingsDir) : [])))
      : undefined;
  const observability = await startObservability(config, store, families, log);
  const upstreams = new UpstreamRegistry(
    config,
    recordings,
    options.fetchImpl,
    store.upstreamBudgets,
    observability.upstreamObserver,
  );
  const rateLimits = new RateLimiter(
    store,
    { perMin: config.rateLimitPerMin, expensivePerMin: config.rateLimitExpensivePerMin },
    log,
  );
  if (config.role !== "worker") rateLimits.start();
  // Serving processes announce themselves, so a pending payment left by one that crashed is known at once.
  const liveNodes = new LiveNodes(store, log);
  if (config.role !== "worker") await liveNodes.start();

  let localFacilitator: Hono | undefined;
  if (config.facilitator.kind === "local") {
    const [{ createLocalFacilitator }, { localFacilitatorRoutes }] = await Promise.all([
      import("./x402/facilitator/facilitator.ts"),
      import("./x402/facilitator/routes.ts"),
    ]);
    localFacilitator = localFacilitatorRoutes(createLocalFacilitator(store, config.networks));
  }

  let handler: Hono | undefined;
  const server = serve({
    fetch: (request, env) => (handler ? handler.fetch(request, env) : errorResponse("starting")),
    port: config.port,
    hostname: config.host,
    // A payment signature echoes the 402's extensions (Bazaar declaration, signed offers, payment identifier):
    // 13–15 KB for the largest products with two networks. Refuse more than 32 KB of headers with 431.
    // Node checks the header and request timeouts on this interval (30 s unless told).
    serverOptions: {
      maxHeaderSize: MAX_REQUEST_HEADER_BYTES,
      connectionsCheckingInterval: 1000,
      // Writes X-Request-Id with the other headers (src/observability/request-id-response.ts).
      ServerResponse: RequestIdResponse,
    },
  });
  // Slow clients must not hold sockets: the whole header within 10 s, the whole request within 30 s, and an
  // idle keep-alive connection closed after 5 s.
  const http = server as unknown as {
    headersTimeout: number;
    requestTimeout: number;
    keepAliveTimeout: number;
  };
  http.headersTimeout = HEADERS_TIMEOUT_MS;
  http.requestTimeout = REQUEST_TIMEOUT_MS;
  http.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError("PORT", `${config.port} is already in use on ${config.host}; choose another PORT`)
          : error,
      );
    });
  });
  const httpServer = server as http.Server;
  const port = (server.address() as AddressInfo).port;
  if (config.env.PUBLIC_URL === undefined || config.env.PUBLIC_URL === "")
    config.publicUrl = `http://localhost:${port}`;
  const internalUrl = `http://${loopbackHost(config.host)}:${port}`;

  const ctx: HandlerContext = { config, store, upstreams, log };
  let paywall: Paywall | undefined;
  let draining = false;
  const app = buildApp({
    ctx,
    products: families.flatMap((f) => f.products),
    paywall: () => paywall,
    draining: () => draining,
    disabledFamilies,
    families,
    observability,
    rateLimits,
    ...(localFacilitator ? { localFacilitator } : {}),
  });
  handler = app;

  const worker = new Worker(
    ctx,
    families,
    {
      "reconcile-settlement": async (payload) => {
        if (!paywall) throw new Error("payments are not ready");
        await paywall.reconcile(Number((payload as { ledgerId: unknown }).ledgerId));
      },
    },
    [async () => paywall?.sweepPending()],
  );
  if (options.worker !== false && config.role !== "serve") worker.start();

  const facilitator = createFacilitatorClient(config, `${internalUrl}/local-facilitator`);
  let closing = false;
  const paymentsReady = (async () => {
    for (let attempt = 0; !closing; attempt++) {
      try {
        paywall = new Paywall(await createResourceServer(config, facilitator), config, store, log);
        paywall.observe(paywallEvents(store.dailyCounts, observability.metrics, log));
        return;
      } catch (error) {
        log.error(
          { err: String(error), attempt },
          "cannot sync with the facilitator; paid routes answer 503 until it answers",
        );
        await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt)));
      }
    }
  })();

  log.info(
    {
      url: config.publicUrl,
      listen: `${config.host}:${port}`,
      facilitator:
        config.facilitator.kind === "local" ? "local (no real money moves)" : config.facilitator.url,
      upstreams: config.upstreams,
      store: store.kind,
      networks: config.networks.map((n) => n.name),
      payTo: config.payTo,
      ...(observability.metricsUrl ? { metrics: `${observability.metricsUrl}/metrics` } : {}),
    },
    config.facilitator.kind === "local"
      ? "paycall listening — LOCAL FACILITATOR: payments settle on a pretend USDC ledger, no real money moves"
      : "paycall listening",
  );
  log.flush(); // supervisors and tests wait for this line; do not leave it in the log buffer
  if (options.releaseMemory) {
    releaseMemoryAfterBuilds(true);
    void paymentsReady.then(() => {
      if (closing) return;
      releaseMemorySoon((ms) =>
        log.debug({ ms: ms === undefined ? undefined : Math.round(ms) }, "memory handed back"),
      );
    });
  }

  return {
    url: internalUrl,
    config,
    store,
    app,
    worker,
    ctx,
    paywall: () => paywall,
    rateLimits,
    ...(observability.metricsUrl ? { metricsUrl: observability.metricsUrl } : {}),
    paymentsReady,
    async close() {
      closing = true;
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      httpServer.closeIdleConnections();
      await closed;
      await worker.stop();
      await rateLimits.stop();
      await liveNodes.stop();
      await observability.close();
      await store.dailyCounts.close().catch((e: unknown) => log.warn({ err: String(e) }, "counts not saved"));
      await store.close();
    },
    async shutdown({ readyDelayMs, graceMs }) {
      // Readiness fails first, so a load balancer stops routing here while requests still succeed.
      draining = true;
      closing = true;
      if (readyDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, readyDelayMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      httpServer.closeIdleConnections();
      // In-flight requests (a paid call being settled among them) finish; keep-alive sockets close as they idle.
      const idleSweep = setInterval(() => httpServer.closeIdleConnections(), 100);
      const inTime = await Promise.race([
        closed.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
      ]);
      clearInterval(idleSweep);
      if (!inTime) {
        log.warn({ graceMs }, "requests still running at the end of the grace period; closing them");
        httpServer.closeAllConnections();
      }
      await worker.stop(graceMs);
      await rateLimits.stop();
      await liveNodes.stop();
      await observability.close();
      await store.dailyCounts.close().catch((e: unknown) => log.warn({ err: String(e) }, "counts not saved"));
      await store.close();
    },
  };
}
