// Whether the store can take a paid call's writes. A query that fails because the database is unreachable (a
// restart, a cut connection) or its disk is full marks the store down; a cheap probe, every half second while it
// is down, marks it up again. Paid calls are refused before verify while it is down (paid-call/store-ready.ts),
// /ready says why, and the writes a paid call could not make when the store went away under it (a settlement's
// outcome, the release of a claim) are made once it is back.
import fs from "node:fs";
import path from "node:path";
import type { DatabaseConnection, Dialect, Driver, QueryResult } from "kysely";
import { errorText } from "../json.ts";
import type { Logger } from "../log.ts";
import type { QueryRunner } from "./prepared.ts";
import type { SyncSqlite } from "./sqlite-dialect.ts";

interface StoreDown {
  reason: string;
  since: string;
}

const PROBE_EVERY_MS = 500;
const PROBE_TIMEOUT_MS = 2000;
/** Free space below this on the SQLite store's file system keeps it down (a write would fail again). */
const MIN_FREE_BYTES = 1024 * 1024;
/** Writes waiting for the store, at most: past this the oldest is dropped (and was logged in full when queued). */
const MAX_DEFERRED = 10_000;

/** Lost connections and refusals to connect: the server is not there (SQLSTATE class 08, 57P01-57P03). */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Client was closed/i;
const SQLITE_FULL = 13;

/** Why `error` means the store cannot take writes now, or undefined for any other failure (a bad query, a conflict). */
function storeOutage(error: unknown): string | undefined {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (!e || typeof e !== "object") return undefined;
  const code = typeof e.code === "string" ? e.code : "";
  const message = typeof e.message === "string" ? e.message : "";
  if (e.errcode === SQLITE_FULL || code === "ENOSPC" || code === "53100" || /disk is full/i.test(message))
    return "disk full";
  if (CONNECTION_CODES.has(code) || code.startsWith("08") || CONNECTION_MESSAGES.test(message))
    return `database connection lost (${code || message.slice(0, 80)})`;
  return e.cause && e.cause !== error ? storeOutage(e.cause) : undefined;
}

/** Errors the store's own queries threw because it was unavailable, with the reason (tagged by `observe`). */
const outages = new WeakMap<object, string>();

/** The reason, when `error` was thrown by a store query because the store was unavailable (not, say, an upstream). */
export function storeFailure(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? outages.get(error) : undefined;
}

interface Deferred {
  what: string;
  write: () => Promise<void>;
}

export class StoreHealth {
  /** Logs going down and up, and deferred writes; set by the service once it has its logger. */
  log: Logger | undefined;
  private state: StoreDown | undefined;
  private probe: () => Promise<void> = async () => {};
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly deferred: Deferred[] = [];

  /** Set once the store exists: resolves when the store takes writes again, throws while it does not. */
  probeWith(probe: () => Promise<void>): void {
    this.probe = probe;
  }

  /** Why the store is down and since when, or undefined while it takes writes. */
  down(): StoreDown | undefined {
    return this.state;
  }

  /** Notes a failed query: true (and the store marked down) when it failed because the store is unavailable. */
  observe(error: unknown): boolean {
    const reason = storeOutage(error);
    if (!reason) return false;
    if (typeof error === "object" && error !== null) outages.set(error, reason);
    if (!this.state) {
      this.state = { reason, since: new Date().toISOString() };
      this.log?.error(
        { reason, err: errorText(error) },
        "STORE DOWN: paid calls are refused until it is back",
      );
      this.schedule();
    }
    return true;
  }

  /**
   * A write a paid call could not make because the store went away, made once it is back (in order). A write
   * failing again for the same cause waits for the next recovery; one failing otherwise is logged and dropped.
   */
  whenBack(what: string, write: () => Promise<void>): void {
    if (this.deferred.length >= MAX_DEFERRED) {
      const dropped = this.deferred.shift();
      this.log?.error({ what: dropped?.what }, "too many writes waiting for the store; dropped the oldest");
    }
    this.deferred.push({ what, write });
    this.schedule();
  }

  /** How many writes wait for the store. */
  get waiting(): number {
    return this.deferred.length;
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check();
    }, PROBE_EVERY_MS);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      await this.probe();
      if (this.state) {
        const since = this.state.since;
        this.state = undefined;
        this.log?.warn({ downSince: since }, "store back: paid calls are taken again");
      }
      await this.flush();
    } catch (error) {
      this.observe(error);
    } finally {
      this.probing = false;
      if (this.state || this.deferred.length) this.schedule();
    }
  }

  private async flush(): Promise<void> {
    while (this.deferred.length) {
      const next = this.deferred[0] as Deferred;
      try {
        await next.write();
        this.log?.info({ what: next.what }, "deferred store write made");
      } catch (error) {
        if (this.observe(error)) return;
        this.log?.error({ what: next.what, err: errorText(error) }, "deferred store write failed; dropped");
      }
      this.deferred.shift();
    }
  }
}

/** The dialect with every failed connection and query noted by `health`. */
export function watchedDialect(dialect: Dialect, health: StoreHealth): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => watchedDriver(dialect.createDriver(), health),
  };
}

function watchedDriver(driver: Driver, health: StoreHealth): Driver {
  const watched = new WeakSet<DatabaseConnection>();
  const noted = (error: unknown) => {
    health.observe(error);
    return error;
  };
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (property !== "acquireConnection") {
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: Parameters<Driver["acquireConnection"]>) => {
        const connection = await target.acquireConnection(...args).catch((e: unknown) => {
          throw noted(e);
        });
        if (!watched.has(connection)) {
          watched.add(connection);
          // Patched in place: the driver releases the very object it handed out.
          const execute = connection.executeQuery.bind(connection);
          connection.executeQuery = <R>(query: Parameters<typeof execute>[0]): Promise<QueryResult<R>> =>
            execute<R>(query).catch((e: unknown) => {
              throw noted(e);
            });
        }
        return connection;
      };
    },
  });
}

/** A runner of compiled statements with failed ones noted by `health`. */
export function watchedRunner(runner: QueryRunner, health: StoreHealth): QueryRunner {
  return {
    executeQuery: (query) =>
      runner.executeQuery(query).catch((error: unknown) => {
        health.observe(error);
        throw error;
      }),
  };
}

/** The synchronous SQLite connection with failed transactions noted by `health`. */
export function watchedSync(sync: SyncSqlite, health: StoreHealth): SyncSqlite {
  const noting =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return run(...args);
      } catch (error) {
        health.observe(error);
        throw error;
      }
    };
  return {
    get inTransaction() {
      return sync.inTransaction;
    },
    rows: noting((query) => sync.rows(query)) as SyncSqlite["rows"],
    changes: noting((query) => sync.changes(query)),
    transaction: noting((work, immediate) => sync.transaction(work, immediate)) as SyncSqlite["transaction"],
  };
}

/**
 * The SQLite store's probe: enough free space on its file system, and a small file written there. (A read-only
 * query would succeed on a full disk.)
 */
export function sqliteSpaceProbe(file: string): () => Promise<void> {
  const dir = path.dirname(file);
  return async () => {
    const stats = await fs.promises.statfs(dir);
    const free = stats.bavail * stats.bsize;
    if (free < MIN_FREE_BYTES)
      throw Object.assign(new Error(`${free} bytes free under ${dir}`), { code: "ENOSPC" });
    const probe = path.join(dir, `.paycall-space-probe-${process.pid}`);
    try {
      await fs.promises.writeFile(probe, Buffer.alloc(64 * 1024));
    } finally {
      await fs.promises.rm(probe, { force: true });
    }
  };
}

/** A probe that throws what the query threw, or a timeout, within PROBE_TIMEOUT_MS. */
export function queryProbe(query: () => Promise<unknown>): () => Promise<void> {
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error("store probe timed out"), { code: "ETIMEDOUT" })),
        PROBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([query(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
