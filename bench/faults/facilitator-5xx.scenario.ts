// The first facilitator answers verify with 503.
import { facilitatorFault } from "./facilitator-harness.ts";

export default {
  name: "facilitator-5xx",
  run: () =>
    facilitatorFault("first facilitator answers 503", async ({ a }) => {
      a.verify = { kind: "json", status: 503, body: { error: "maintenance" } };
    }),
};
