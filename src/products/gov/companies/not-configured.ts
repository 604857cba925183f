// One country's register that cannot serve in this configuration (live mode without the credentials it needs):
// its route answers 503 `not_configured` before any payment is asked, while the rest of the family serves.
// The body is the one a disabled family's routes answer (src/app.ts), so buyers read one shape.
import type { ErrorOutcome } from "../../../catalog/product.ts";

export interface RegisterProblem {
  /** "The Swiss company register (Zefix)" */
  register: string;
  reason: string;
  fix: string;
  docs?: string;
}

export function notConfigured(problem: RegisterProblem): ErrorOutcome {
  return {
    status: 503,
    body: {
      error: "not_configured",
      message: `${problem.register} is disabled on this server: ${problem.reason} Nothing was charged.`,
      charged: false,
      family: "gov-companies",
      reason: problem.reason,
      fix: problem.fix,
      ...(problem.docs ? { docs: problem.docs } : {}),
    },
  };
}
