// JSON logs through pino. Payment headers and secrets are never logged.
import { pino } from "pino";
import type { LogLevel } from "./config.ts";

export type Logger = pino.Logger;

export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: { service: "paycall" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ["*.headers['payment-signature']", "*.headers.authorization", "*.privateKey"],
      remove: true,
    },
  });
}
