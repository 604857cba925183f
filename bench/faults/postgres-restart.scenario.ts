// PostgreSQL restarted (pg_ctl stop -m fast, 5 s down, start) under paid load on two nodes sharing it: a private
// cluster of this scenario's own, never the machine's server.
import { postgresBinaries, startPrivatePostgres } from "../../test/private-postgres.ts";
import { emptyRow, startFaultCluster, underPaidLoad } from "./cluster.ts";
import type { FaultRow, FaultScenario } from "./row.ts";

const FAULT = "PostgreSQL restart (5 s down), 2 nodes";

const scenario: FaultScenario = {
  name: "postgres-restart",
  async run(): Promise<FaultRow> {
    const binaries = postgresBinaries();
    if (!binaries)
      return emptyRow(FAULT, "skipped: no PostgreSQL binaries (initdb, pg_ctl) for a private cluster");
    const pg = await startPrivatePostgres(binaries);
    try {
      // Settlements take 200 ms, so the restart catches some between settle and record.
      const cluster = await startFaultCluster(pg.url, ["all", "serve"], { settleDelayMs: 200 });
      try {
        return await underPaidLoad(FAULT, cluster, pg.stop, pg.start);
      } finally {
        await cluster.stop();
      }
    } finally {
      pg.destroy();
    }
  },
};

export default scenario;
