// Starts paycall: store, products, HTTP server, payments and the worker; stops them in order.
import type http from "node:http";
import path from "node:path";
import type { KeyPairSigner } from "@solana/kit";
import type { Hono } from "hono";
import type { Migration } from "kysely/migration";
import { RateLimiter } from "./abuse/rate-limiter.ts";
import { buildApp } from "./app.ts";
import type { ServiceContext } from "./catalog/family-context.ts";
import type { Family } from "./catalog/product.ts";
import { type Config, redactUrl, usesLocalFacilitator } from "./config.ts";
import { errorResponse } from "./errors.ts";
import { listen } from "./http/listen.ts";
import { Worker } from "./jobs/worker.ts";
import { createLogger, type Logger } from "./log.ts";
import { releaseMemoryAfterBuilds, releaseMemorySoon } from "./memory-release.ts";
import { type Observability, startObservability } from "./observability/index.ts";
import type { PaidCallsNow } from "./observability/metrics.ts";
import { paywallEvents } from "./observability/paywall-events.ts";
import { warnOversizeChallenges } from "./preflight/challenge-heads.ts";
import { FAMILIES } from "./products/index.ts";
import { ensurePrivateDir } from "./store/private-files.ts";
import { openStore, type Store } from "./store/store.ts";
import { loadRecordings, RecordingIndex } from "./upstream/recordings.ts";
import { UpstreamRegistry } from "./upstream/registry.ts";
import { createFacilitatorSet } from "./x402/seller/facilitators/create.ts";
import type { FacilitatorSet } from "./x402/seller/facilitators/set.ts";
import { LiveNodes, liveNodeCount } from "./x402/seller/live-nodes.ts";
import { Paywall } from "./x402/seller/paywall.ts";
import { createResourceServer } from "./x402/seller/resource-server.ts";

export {
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_GRACE_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
} from "./http/listen.ts";

export interface Service {
  /** Where the service answers: its loopback listener, or (listen: false) an origin only `fetch` answers. */
  url: string;
  /** Answers one request as the listener would, in this process (the listener hands requests here too). */
  fetch: (request: Request) => Promise<Response>;
  config: Config;
  store: Store;
  app: Hono;
  worker: Worker;
  ctx: ServiceContext;
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

interface StartOptions {
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
  /**
   * Listen on config.host:config.port (default true). Without a listener the service answers only through
   * `fetch`, at an origin of its own, and its embedded facilitator is called in process (tests).
   */
  listen?: boolean;
}

let inProcessServices = 0;

export function buildFamilies(config: Config): Family[] {
  return FAMILIES.map((factory) => factory(config));
}

function familyMigrations(families: Family[]): Record<string, Migration> {
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
  await useDevelopmentPayTo(config, log);
  // Read (and a configured key checked) before anything is opened: a malformed key stops the start naming it.
  const solanaFeePayer = await localSolanaFeePayerIfUsed(config);
  const families = options.families ?? buildFamilies(config);
  const disabledFamilies = warnDisabled(families, log);
  const store = await openServiceStore(config, families);
  store.health.log = log;
  const observability = await startObservability(config, store, families, log);
  const upstreams = upstreamRegistry(config, families, store, observability, options.fetchImpl);
  const rateLimits = new RateLimiter(
    store,
    { perMin: config.rateLimitPerMin, expensivePerMin: config.rateLimitExpensivePerMin },
    log,
  );
  if (config.role !== "worker") rateLimits.start();
  // Serving processes announce themselves, so a pending payment left by one that crashed is known at once.
  const liveNodes = new LiveNodes(store, log);
  if (config.role !== "worker") await liveNodes.start();
  const localFacilitator = await localFacilitatorRoutesIfUsed(config, store, solanaFeePayer);

  let handler: Hono | undefined;
  const answer = (request: Request, env?: unknown): Promise<Response> =>
    Promise.resolve(handler ? handler.fetch(request, env) : errorResponse("starting"));
  const listener = options.listen === false ? undefined : await listen(config, answer);
  const origin = listener
    ? {
        internal: `http://${loopbackHost(config.host)}:${listener.port}`,
        public: `http://localhost:${listener.port}`,
      }
    : inProcessOrigin();
  if (config.env.PUBLIC_URL === undefined || config.env.PUBLIC_URL === "") config.publicUrl = origin.public;
  const internalUrl = origin.internal;

  const ctx: ServiceContext = { config, store, upstreams, log };
  for (const family of families) family.attach?.(ctx);
  let paywall: Paywall | undefined;
  let draining = false;
  const facilitators = createFacilitatorSet(config, {
    localUrl: `${internalUrl}/local-facilitator`,
    ...(listener ? {} : { inProcess: (request: Request) => answer(request) }),
    log,
    records: store.facilitators,
  });
  observability.metrics?.watchFacilitators(facilitators);
  const paidCallsNow = (): PaidCallsNow | undefined =>
    paywall && { ...paywall.slots.figures(), facilitator: facilitators.queue() };
  observability.metrics?.watchPaidCalls(paidCallsNow);
  const app = buildApp({
    ctx,
    products: families.flatMap((f) => f.products),
    paywall: () => paywall,
    draining: () => draining,
    disabledFamilies,
    families,
    observability,
    rateLimits,
    paidCallsNow,
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
    [async () => paywall?.sweepPending(), async () => paywall?.batch?.tick()],
  );
  if (options.worker !== false && config.role !== "serve") worker.start();

  let closing = false;
  const paymentsReady = connectPayments(
    config,
    store,
    observability,
    log,
    facilitators,
    () => closing,
    (ready) => {
      paywall = ready;
    },
  );
  logListening(
    config,
    store,
    observability,
    log,
    listener ? `${config.host}:${listener.port}` : "in process",
  );
  void paymentsReady.then(() =>
    warnOversizeChallenges(
      config,
      paywall,
      families.flatMap((f) => f.products),
      log,
    ),
  );
  if (options.releaseMemory) {
    releaseMemoryAfterBuilds(true);
    void paymentsReady.then(() => {
      if (closing) return;
      releaseMemorySoon((ms) =>
        log.debug({ ms: ms === undefined ? undefined : Math.round(ms) }, "memory handed back"),
      );
    });
  }

  /** After the listener: the worker, the limits, the node's announcement, metrics, the counts, the store. */
  const stopTheRest = async (workerGraceMs?: number) => {
    await worker.stop(workerGraceMs);
    await claimAtLastShutdown(paywall, store, log);
    await facilitators.close();
    await rateLimits.stop();
    await liveNodes.stop();
    await observability.close();
    await store.dailyCounts.close().catch((e: unknown) => log.warn({ err: String(e) }, "counts not saved"));
    await store.close();
  };

  return {
    url: internalUrl,
    fetch: answer,
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
      if (listener) {
        const closed = new Promise<void>((resolve) => listener.server.close(() => resolve()));
        listener.server.closeIdleConnections();
        await closed;
      }
      await stopTheRest();
    },
    async shutdown({ readyDelayMs, graceMs }) {
      // Readiness fails first, so a load balancer stops routing here while requests still succeed.
      draining = true;
      closing = true;
      if (readyDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, readyDelayMs));
      if (listener) await drainConnections(listener.server, graceMs, log);
      await stopTheRest(graceMs);
    },
  };
}

/** With the local facilitator and no PAY_TO_EVM: a development pay-to, and its ownership proof for x402scan. */
async function useDevelopmentPayTo(config: Config, log: Logger): Promise<void> {
  if (config.facilitator.kind !== "local") return;
  await useDevelopmentSolanaPayTo(config, log);
  // The local facilitator's code (its exact-EVM verifier, the development wallets) is imported only when used.
  if (config.payTo.evm) return;
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

/** With the local facilitator, a Solana network and no PAY_TO_SOLANA: a development Solana pay-to. */
async function useDevelopmentSolanaPayTo(config: Config, log: Logger): Promise<void> {
  if (config.payTo.solana || !config.networks.some((n) => n.kind === "svm")) return;
  const { devSolanaPayTo } = await import("./x402/facilitator/dev-wallets.ts");
  config.payTo.solana = (await devSolanaPayTo(config.dataDir)).address;
  log.warn(
    { payTo: config.payTo.solana },
    "PAY_TO_SOLANA unset: using a development Solana pay-to address (local facilitator only)",
  );
}

function warnDisabled(families: Family[], log: Logger): Family[] {
  const disabled = families.filter((f) => f.unavailable);
  for (const family of disabled) {
    log.warn(
      { family: family.name, ...family.unavailable },
      `${family.name} disabled: ${family.unavailable?.reason} Fix: ${family.unavailable?.fix}`,
    );
  }
  return disabled;
}

function upstreamRegistry(
  config: Config,
  families: Family[],
  store: Store,
  observability: Observability,
  fetchImpl: typeof fetch | undefined,
): UpstreamRegistry {
  // Only replay mode answers from the recordings (about 1 MB once read); live mode leaves them on disk.
  const recordings =
    config.upstreams === "replay"
      ? new RecordingIndex(families.flatMap((f) => (f.recordingsDir ? loadRecordings(f.recordingsDir) : [])))
      : undefined;
  return new UpstreamRegistry(
    config,
    recordings,
    fetchImpl,
    store.upstreamBudgets,
    observability.upstreamObserver,
  );
}

/** The local facilitator's Solana fee payer, when it serves a Solana network (Solana Kit is loaded only then). */
async function localSolanaFeePayerIfUsed(config: Config): Promise<KeyPairSigner | undefined> {
  if (!usesLocalFacilitator(config) || !config.networks.some((n) => n.kind === "svm")) return undefined;
  const { localSolanaFeePayer } = await import("./x402/facilitator/dev-wallets.ts");
  return localSolanaFeePayer(config);
}

async function localFacilitatorRoutesIfUsed(
  config: Config,
  store: Store,
  solanaFeePayer: KeyPairSigner | undefined,
): Promise<Hono | undefined> {
  if (!usesLocalFacilitator(config)) return undefined;
  const [{ createLocalFacilitator }, { localFacilitatorRoutes }, { createEvmRpc }] = await Promise.all([
    import("./x402/facilitator/facilitator.ts"),
    import("./x402/facilitator/routes.ts"),
    import("./x402/facilitator/evm-rpc.ts"),
  ]);
  const facilitator = createLocalFacilitator(store, config.networks);
  const evm = new Map(
    config.networks.filter((n) => n.kind === "evm").map((n) => [n.name, createEvmRpc(store, n)] as const),
  );
  if (!solanaFeePayer) return localFacilitatorRoutes(facilitator, { evm });
  const { registerLocalSolana } = await import("./x402/facilitator/solana-facilitator.ts");
  const solana = registerLocalSolana(facilitator, store, config.networks, { feePayer: solanaFeePayer });
  return localFacilitatorRoutes(facilitator, { solana, evm });
}

/**
 * Syncs with the facilitators until one's /supported is known, read now or stored from before (paid routes
 * answer 503 meanwhile), then hands over the paywall.
 */
async function connectPayments(
  config: Config,
  store: Store,
  observability: Observability,
  log: Logger,
  facilitators: FacilitatorSet,
  closing: () => boolean,
  ready: (paywall: Paywall) => void,
): Promise<void> {
  await facilitators.start();
  for (let attempt = 0; !closing(); attempt++) {
    try {
      const server = await createResourceServer(config, facilitators, store, log);
      const paywall = new Paywall(server, config, store, log);
      paywall.observe(paywallEvents(store.dailyCounts, observability.metrics, log));
      ready(paywall);
      return;
    } catch (error) {
      log.error(
        { err: String(error), attempt },
        "cannot sync with any facilitator; paid routes answer 503 until one answers",
      );
      await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** attempt)));
    }
  }
}

/**
 * The last serving node to stop claims and settles every voucher still unclaimed (no node is left to do it
 * before a buyer's withdraw delay could run out); any other hands the claimer's lease on.
 */
async function claimAtLastShutdown(paywall: Paywall | undefined, store: Store, log: Logger): Promise<void> {
  const batch = paywall?.batch;
  if (!batch) return;
  try {
    if ((await liveNodeCount(store)) <= 1) await batch.flush("shutdown");
  } catch (error) {
    log.error({ err: String(error) }, "could not claim the batch-settlement vouchers at shutdown");
  }
  await batch.release();
}

/** The origin of a service without a listener: its own, so tests can tell several apart. */
function inProcessOrigin(): { internal: string; public: string } {
  const url = `http://in-process-${++inProcessServices}.paycall.test`;
  return { internal: url, public: url };
}

function logListening(
  config: Config,
  store: Store,
  observability: Observability,
  log: Logger,
  listen: string,
) {
  log.info(
    {
      url: config.publicUrl,
      listen,
      facilitators: config.facilitators.map((f) =>
        f.kind === "local" ? "local (no real money moves)" : redactUrl(f.url),
      ),
      upstreams: config.upstreams,
      store: store.kind,
      networks: config.networks.map((n) => n.name),
      payTo: config.payTo,
      ...(observability.metricsUrl ? { metrics: `${observability.metricsUrl}/metrics` } : {}),
    },
    config.facilitators.every((f) => f.kind === "local")
      ? "paycall listening — LOCAL FACILITATOR: payments settle on a pretend USDC ledger, no real money moves"
      : "paycall listening",
  );
  log.flush(); // supervisors and tests wait for this line; do not leave it in the log buffer
}

/** New connections stop; in-flight requests (a paid call being settled among them) get graceMs to finish. */
async function drainConnections(server: http.Server, graceMs: number, log: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Keep-alive sockets close as they idle.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  const inTime = await Promise.race([
    closed.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs).unref()),
  ]);
  clearInterval(idleSweep);
  if (!inTime) {
    log.warn({ graceMs }, "requests still running at the end of the grace period; closing them");
    server.closeAllConnections();
  }
}
