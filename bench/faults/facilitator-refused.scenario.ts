// The first facilitator stops listening (connections refused): verify and settle move to the second.
import { facilitatorFault } from "./facilitator-harness.ts";

export default {
  name: "facilitator-refused",
  run: () => facilitatorFault("first facilitator refuses connections", ({ a }) => a.refuse()),
};
