// The disk under the SQLite store full for 5 s under paid load (one node): a tmpfs of this scenario's own,
// filled with a file and emptied again. Needs root to mount; skipped with the reason otherwise.
import path from "node:path";
import { paidLoad, presignedHeaders } from "../../test/paid-load.ts";
import { mountTmpfs } from "../../test/tmpfs.ts";
import { faultRow, sleep, startFaultCluster } from "./cluster.ts";
import type { FaultRow, FaultScenario } from "./row.ts";

const FAULT = "SQLite disk full (5 s), 1 node";
const FULL_MS = 5000;

const scenario: FaultScenario = {
  name: "disk-full",
  async run(): Promise<FaultRow> {
    const disk = mountTmpfs(128);
    if (typeof disk === "string")
      return {
        fault: FAULT,
        attempted: 0,
        delivered: 0,
        charged: 0,
        refused: 0,
        worstLatencyMs: 0,
        recoveryMs: null,
        notes: `skipped: ${disk}`,
      };
    try {
      const cluster = await startFaultCluster(`sqlite:${path.join(disk.dir, "store.sqlite")}`, ["all"], {
        dataDir: disk.dir,
      });
      try {
        const headers = await presignedHeaders(cluster.urls[0] as string, 1500);
        const load = paidLoad(cluster.urls, headers, { concurrency: 4, paceMs: 50 });
        await sleep(3000);
        disk.fill();
        await sleep(FULL_MS);
        disk.free();
        const endedAt = Date.now();
        await sleep(5000);
        return await faultRow(FAULT, cluster, await load.stop(), endedAt);
      } finally {
        await cluster.stop();
      }
    } finally {
      disk.free();
      disk.unmount();
    }
  },
};

export default scenario;
