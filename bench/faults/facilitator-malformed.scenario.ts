// The first facilitator answers verify with malformed JSON.
import { facilitatorFault } from "./facilitator-harness.ts";

export default {
  name: "facilitator-malformed",
  run: () =>
    facilitatorFault("first facilitator answers malformed JSON", async ({ a }) => {
      a.verify = { kind: "raw", status: 200, text: '{"isValid": tru' };
    }),
};
