// The first facilitator accepts verify and never answers: each call waits out FACILITATOR_TIMEOUT_MS (1 s) and
// fails over, until the circuit opens after three.
import { facilitatorFault } from "./facilitator-harness.ts";

export default {
  name: "facilitator-hanging",
  run: () =>
    facilitatorFault("first facilitator hangs on verify", async ({ a }) => {
      a.verify = { kind: "hang" };
    }),
};
