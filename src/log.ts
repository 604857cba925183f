// JSON logs through pino. Payment headers and secrets are never logged.
// Lines go to stdout through one buffered asynchronous destination: at info level every request writes a line,
// and a synchronous write per line cost a third of the 402 path's CPU. The buffer is flushed every second and
// synchronously when the process exits, so a line is at most a second late and only a hard kill loses it.
import { pino } from "pino";
import type { LogLevel } from "./config.ts";

export type Logger = pino.Logger;

const FLUSH_EVERY_MS = 1000;
let stdout: pino.DestinationStream | undefined;

function bufferedStdout(): pino.DestinationStream {
  if (stdout) return stdout;
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  process.on("exit", () => {
    try {
      destination.flushSync();
    } catch {
      // stdout already closed: nothing more can be written
    }
  });
  stdout = destination;
  return destination;
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "paycall" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ["*.headers['payment-signature']", "*.headers.authorization", "*.privateKey"],
      remove: true,
    },
  };
  if (level === "silent") return pino(options);
  return pino(options, destination ?? bufferedStdout());
}
