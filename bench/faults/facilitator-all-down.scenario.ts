// Both facilitators refuse connections: paid calls are refused (502 until the circuits open, then 503 with
// Retry-After) and nothing is charged; the first comes back after 3 s and payments resume through it.
import { setTimeout as sleep } from "node:timers/promises";
import { facilitatorFault } from "./facilitator-harness.ts";

export default {
  name: "facilitator-all-down",
  run: () =>
    facilitatorFault(
      "both facilitators down for 3 s",
      async ({ a, b }) => {
        await a.refuse();
        await b.refuse();
        setTimeout(() => void a.accept(), 3000);
        await sleep(0);
      },
      { after: 60, paceMs: 100 },
    ),
};
