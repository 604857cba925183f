// Which test files need a process of their own (test/run-tests.ts): those that change what the process holds
// for every module in it (the environment, globals, process listeners, fake timers) or measure the process
// itself (memory, CPU, garbage collection, open files, the event loop). The others share processes with other
// files. A file is judged by its own text, so a new file is placed without being named; when in doubt, a file
// gets its own process.
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

const PROCESS_WIDE =
  /process\.env|globalThis|process\.(on|once|off|removeListener|removeAllListeners|exit|exitCode|chdir|umask|memoryUsage|resourceUsage|cpuUsage|emitWarning)\b|mock\.(timers|module|method)|setGlobalDispatcher|global\.gc|expose-gc|v8\.|heapUsed|EventEmitter|\/proc\/self|getActive(ResourcesInfo|Handles)|monitorEventLoopDelay|eventLoopUtilization/;

/** Files that share a process without harm by their text but not in fact (relative to the repository), and why. */
export const OWN_PROCESS: Record<string, string> = {
  "src/products/edgar/status.test.ts":
    "the status reports the ticker directory this process built last; it expects none before its warmers run",
};

export function needsOwnProcess(file: string): boolean {
  return (
    path.relative(ROOT, path.resolve(file)) in OWN_PROCESS || PROCESS_WIDE.test(fs.readFileSync(file, "utf8"))
  );
}
