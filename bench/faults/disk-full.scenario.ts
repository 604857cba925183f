// The disk under the SQLite store full for 5 s under paid load (one node): a tmpfs of this scenario's own,
// filled with a file and emptied again. Needs root to mount; skipped with the reason otherwise.
import path from "node:path";
import { mountTmpfs } from "../../test/tmpfs.ts";
import { emptyRow, startFaultCluster, underPaidLoad } from "./cluster.ts";
import type { FaultRow, FaultScenario } from "./row.ts";

const FAULT = "SQLite disk full (5 s), 1 node";

const scenario: FaultScenario = {
  name: "disk-full",
  async run(): Promise<FaultRow> {
    const disk = mountTmpfs(128);
    if (typeof disk === "string") return emptyRow(FAULT, `skipped: ${disk}`);
    try {
      const database = `sqlite:${path.join(disk.dir, "store.sqlite")}`;
      const cluster = await startFaultCluster(database, ["all"], { dataDir: disk.dir });
      try {
        return await underPaidLoad(FAULT, cluster, disk.fill, disk.free);
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
