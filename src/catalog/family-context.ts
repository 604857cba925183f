// The boundary of a product family, drawn in types: what its handlers, warmers, jobs and background tasks are
// handed (`HandlerContext`), and the service's whole context they are not (`ServiceContext`). The ledger, nonce
// claims, refunds, sales, receipt keys, payment settings and the core's tables are not reachable from a family.
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { CacheRepository } from "../store/cache.ts";
import type { JobRepository } from "../store/jobs.ts";
import type { LeaseRepository } from "../store/leases.ts";
import type { OwnTables, Store, StoreKind } from "../store/store.ts";
import type { UpstreamBudgetRepository } from "../store/upstream-budgets.ts";
import type { WarmerRunRepository } from "../store/warmer-runs.ts";
import type { UpstreamRegistry } from "../upstream/registry.ts";

export type { CachedDocument, PutDocument } from "../store/cache.ts";
export type { JobLane, LaneFigures } from "../store/jobs.ts";
/** Whether a query builder (a migration's, or `tables.of()`) runs on PostgreSQL. */
export { isPostgres } from "../store/postgres-dialect.ts";

/** Everything the service runs with: the entry layer, the paid path and the worker hold it; families never do. */
export interface ServiceContext {
  config: Config;
  store: Store;
  upstreams: UpstreamRegistry;
  log: Logger;
}

/**
 * A family's own tables, those its migrations create: `tables.of<NvdTables>()` is a query builder typed with
 * them alone. The core's table types live in src/store/schema.ts, which a family may not import (test/layers.test.ts).
 */
type FamilyTables = OwnTables;

/** The family's part of the store. */
export interface FamilyStore {
  readonly kind: StoreKind;
  readonly cache: CacheRepository;
  /** Enqueueing and reading its queues; claiming, completing and purging are the worker's. */
  readonly jobs: Pick<JobRepository, "enqueue" | "get" | "counts" | "laneFigures">;
  readonly leases: Pick<LeaseRepository, "acquire" | "release" | "holder">;
  /** Its warmers' last runs (the worker records them). */
  readonly warmerRuns: Pick<WarmerRunRepository, "status">;
  /** Spacing requests to an upstream across nodes, for a family that calls it outside the upstream client. */
  readonly upstreamBudgets: Pick<UpstreamBudgetRepository, "reserve">;
  readonly tables: FamilyTables;
}

/**
 * The settings a family reads while serving. A family parses its own settings once, in its factory (which is
 * handed the whole Config at start); these are the service-wide facts it may read afterwards. `publicUrl` is
 * read live: it is known only once the listener has its port.
 */
type FamilyConfig = Pick<Config, "publicUrl" | "dataDir" | "upstreams" | "operatorName" | "contact" | "env">;

/** What a product family's handlers, warmers, jobs and background tasks are handed. */
export interface HandlerContext {
  config: FamilyConfig;
  store: FamilyStore;
  upstreams: UpstreamRegistry;
  log: Logger;
}

const familyStores = new WeakMap<Store, FamilyStore>();

/** One per store, so that what a family keeps per store (memos keyed by it) is kept once. */
export function familyStore(store: Store): FamilyStore {
  let narrowed = familyStores.get(store);
  if (!narrowed) {
    narrowed = narrow(store);
    familyStores.set(store, narrowed);
  }
  return narrowed;
}

function narrow(store: Store): FamilyStore {
  return {
    kind: store.kind,
    cache: store.cache,
    jobs: store.jobs,
    leases: store.leases,
    warmerRuns: store.warmerRuns,
    upstreamBudgets: store.upstreamBudgets,
    tables: store.tables,
  };
}

/**
 * The service's own secrets and payment settings, left out of the environment a family reads: its keys and
 * credentials are its own settings, read under its own names.
 */
const SERVICE_SETTINGS = new Set([
  "RECEIPT_SIGNING_KEY",
  "BATCH_RECEIVER_AUTHORIZER_KEY",
  "CDP_API_KEY_ID",
  "CDP_API_KEY_SECRET",
  "BUYER_PRIVATE_KEY",
  "BUYER_SOLANA_KEY",
  "LOCAL_SOLANA_FEE_PAYER_KEY",
  "ADMIN_TOKEN",
  "DATABASE_URL",
  "FACILITATOR_HEADERS",
  "PAY_TO_EVM",
  "PAY_TO_SOLANA",
]);

function familyEnv(env: Config["env"]): Config["env"] {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SERVICE_SETTINGS.has(name)));
}

const familyContexts = new WeakMap<ServiceContext, HandlerContext>();

/** Narrows the service's context to a family's (one per service context). */
export function familyContext(service: ServiceContext): HandlerContext {
  let narrowed = familyContexts.get(service);
  if (!narrowed) {
    const { config, upstreams, log } = service;
    const familyConfig: FamilyConfig = {
      // Read live: the service learns its own URL once the listener has its port.
      get publicUrl() {
        return config.publicUrl;
      },
      dataDir: config.dataDir,
      upstreams: config.upstreams,
      operatorName: config.operatorName,
      contact: config.contact,
      env: familyEnv(config.env),
    };
    narrowed = { config: familyConfig, store: familyStore(service.store), upstreams, log };
    familyContexts.set(service, narrowed);
  }
  return narrowed;
}
