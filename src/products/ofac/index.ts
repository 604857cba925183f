// The OFAC family: name screening against the US Treasury's SDN and consolidated sanctions lists, downloaded
// when OFAC publishes and indexed in memory on every node.
import path from "node:path";
import { type FamilyFactory, jobKind } from "../../catalog/product.ts";
import { ofacPreflight } from "./preflight.ts";
import { OFAC_REFRESH_QUEUE, ofacWarmer, refreshAndIndex } from "./refresh.ts";
import { OfacRuntime, ofacIndexTask } from "./runtime.ts";
import { ofacSdn } from "./sdn.ts";
import { ofacStatus } from "./status.ts";

export const OFAC_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const ofacFamily: FamilyFactory = () => {
  const runtime = new OfacRuntime();
  return {
    name: "ofac",
    preflight: ofacPreflight(),
    products: [ofacSdn(runtime), ofacStatus(runtime)],
    warmers: [ofacWarmer(runtime)],
    jobs: {
      // The lists' download alone may take 5 minutes.
      [OFAC_REFRESH_QUEUE]: jobKind({ timeLimitMs: 15 * 60_000 }, async (_payload, ctx) => {
        const counts = await refreshAndIndex(ctx, runtime);
        ctx.log.info({ counts }, "ofac: lists refreshed on first request");
      }),
    },
    background: [ofacIndexTask(runtime)],
    recordingsDir: OFAC_RECORDINGS_DIR,
  };
};
