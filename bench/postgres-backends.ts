// The CPU a PostgreSQL server spends for one client application: its backends (found by application_name in
// pg_stat_activity) read from /proc. Only meaningful when the database runs on this host, as the benches'
// does (127.0.0.1); elsewhere the pids are not ours to read and the figure is missing.
import pg from "pg";
import { cpuTimes } from "./processes.ts";

/** `url` with `application_name` set, so that the application's backends can be told apart. */
export function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("application_name", name);
  return parsed.toString();
}

export class BackendCpu {
  readonly #client: pg.Client;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  static async open(url: string): Promise<BackendCpu> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new BackendCpu(client);
  }

  /** CPU µs (user + kernel) used so far by each backend of `application`, by pid; undefined without /proc. */
  async of(application: string): Promise<Map<number, number> | undefined> {
    const { rows } = await this.#client.query<{ pid: number }>(
      "select pid from pg_stat_activity where application_name = $1",
      [application],
    );
    const times = new Map<number, number>();
    for (const { pid } of rows) {
      const cpu = cpuTimes(pid);
      if (!cpu) return undefined;
      times.set(pid, cpu.userUs + cpu.systemUs);
    }
    return times;
  }

  /** CPU µs spent between two readings of `of` (a backend started in between counts from zero). */
  static spent(
    before: Map<number, number> | undefined,
    after: Map<number, number> | undefined,
  ): number | undefined {
    if (!before || !after) return undefined;
    let total = 0;
    for (const [pid, us] of after) total += us - (before.get(pid) ?? 0);
    return total;
  }

  close(): Promise<void> {
    return this.#client.end();
  }
}

/** Drops a bench run's schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
