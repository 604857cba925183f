// PostgreSQL restarted (pg_ctl stop -m fast, 5 s down, start) under paid load on two nodes sharing it: a private
// cluster of this scenario's own, never the machine's server.
import { paidLoad, presignedHeaders } from "../../test/paid-load.ts";
import { postgresBinaries, startPrivatePostgres } from "../../test/private-postgres.ts";
import { faultRow, sleep, startFaultCluster } from "./cluster.ts";
import type { FaultRow, FaultScenario } from "./row.ts";

const FAULT = "PostgreSQL restart (5 s down), 2 nodes";
const DOWN_MS = 5000;

const scenario: FaultScenario = {
  name: "postgres-restart",
  async run(): Promise<FaultRow> {
    const binaries = postgresBinaries();
    if (!binaries) return skipped("no PostgreSQL binaries (initdb, pg_ctl) to start a private cluster");
    const pg = await startPrivatePostgres(binaries);
    try {
      // Settlements take 200 ms, so the restart catches some between settle and record.
      const cluster = await startFaultCluster(pg.url, ["all", "serve"], { settleDelayMs: 200 });
      try {
        const headers = await presignedHeaders(cluster.urls[0] as string, 1500);
        const load = paidLoad(cluster.urls, headers, { concurrency: 4, paceMs: 50 });
        await sleep(3000);
        pg.stop();
        await sleep(DOWN_MS);
        pg.start();
        const endedAt = Date.now();
        await sleep(5000);
        return await faultRow(FAULT, cluster, await load.stop(), endedAt);
      } finally {
        await cluster.stop();
      }
    } finally {
      pg.destroy();
    }
  },
};

function skipped(why: string): FaultRow {
  return {
    fault: FAULT,
    attempted: 0,
    delivered: 0,
    charged: 0,
    refused: 0,
    worstLatencyMs: 0,
    recoveryMs: null,
    notes: `skipped: ${why}`,
  };
}

export default scenario;
