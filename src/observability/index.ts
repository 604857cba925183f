// Metrics of one service: collected only when someone can scrape them (ADMIN_TOKEN or METRICS_PORT set). Their
// modules (prom-client among them, about 1.3 MB of heap) are imported only then.
import type { Family } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { UpstreamObserver } from "../upstream/client.ts";
import type { Metrics } from "./metrics.ts";

export interface Observability {
  metrics?: Metrics;
  /** Hands every upstream exchange to the metrics. */
  upstreamObserver?: UpstreamObserver;
  /** The loopback metrics server's base URL, when METRICS_PORT is set. */
  metricsUrl?: string;
  close: () => Promise<void>;
}

/** Queues the service itself runs besides the families' (service.ts). */
const CORE_QUEUES = ["reconcile-settlement"];

export async function startObservability(
  config: Config,
  store: Store,
  families: Family[],
  log: Logger,
): Promise<Observability> {
  if (config.adminToken === undefined && config.metricsPort === undefined) return { close: async () => {} };
  const [{ Metrics }, { StoreGauges }, { startMetricsServer }] = await Promise.all([
    import("./metrics.ts"),
    import("./store-gauges.ts"),
    import("./metrics-server.ts"),
  ]);
  const enabled = families.filter((f) => !f.unavailable);
  const queues = [...CORE_QUEUES, ...enabled.flatMap((f) => Object.keys(f.jobs ?? {}))];
  const metrics = new Metrics(
    new StoreGauges(
      store,
      queues,
      enabled.flatMap((f) => f.warmers ?? []),
    ),
  );
  store.cache.observe((family, hit) => metrics.cacheRead(family, hit));
  const upstreamObserver: UpstreamObserver = (upstream, status, ms) =>
    metrics.upstreamExchange(upstream, status, ms);
  if (config.metricsPort === undefined) return { metrics, upstreamObserver, close: async () => {} };
  const server = await startMetricsServer(metrics, config.metricsPort, log);
  return { metrics, upstreamObserver, metricsUrl: server.url, close: server.close };
}
