// One finding of a checkup: a catalogue cause, how bad it is here, what was seen and how to fix it.
import { causeByCode } from "../diagnosis/causes.ts";

export type Severity = "error" | "warning" | "info";

export interface Problem {
  code: string;
  severity: Severity;
  message: string;
  fix: string;
  /** Where in the challenge, e.g. accepts[0].asset. */
  where?: string;
}

export function problem(code: string, severity: Severity, message: string, where?: string): Problem {
  return { code, severity, message, fix: causeByCode(code).fix, ...(where ? { where } : {}) };
}

export function hasErrors(problems: Problem[]): boolean {
  return problems.some((p) => p.severity === "error");
}
