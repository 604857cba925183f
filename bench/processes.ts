// Child processes of the benchmarks: servers pinned to CPU 0 and load generators to CPU 1 (taskset), each
// announcing readiness with one JSON line (bench/servers/common.ts); their CPU time read from /proc.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const NODE = process.execPath;

const children = new Set<ChildProcess>();
const tmpDirs = new Set<string>();

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-c", "0", "true"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}
export const PINNED = hasTaskset() && (await import("node:os")).availableParallelism() >= 2;

/** `node ...args`, pinned to `cpu` with taskset when available (taskset execs, so the pid is node's). */
export function spawnPinned(cpu: number, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const [command, argv] = PINNED ? ["taskset", ["-c", String(cpu), NODE, ...args]] : [NODE, args];
  const child = spawn(command, argv, { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

export function tail(text: string, max = 2000): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}

export interface RunningServer<Name extends string = string> {
  name: Name;
  child: ChildProcess;
  pid: number;
  url: string;
  info: Record<string, unknown>;
}

/**
 * paycall's node flags as `npm start` and the Docker image give them (docs/operating.md, "Memory"): V8's memory
 * reducer off, as paycall hands memory back itself at the moments that matter, and a young generation of at most
 * 2 × 16 MB.
 */
export const NPM_START_NODE_FLAGS = ["--no-memory-reducer", "--max-semi-space-size=16"];

/**
 * paycall's environment as `npm start` and the Docker image give it: glibc's malloc limited to two arenas
 * (about 7 MB less idle; docs/operating.md, "Memory"), unless the caller's environment says otherwise.
 */
export function asNpmStart(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" };
}

/** Starts a server child on `cpu` and waits (bounded) for its `{"ready":true,"url":...}` line on stdout. */
export function startServer<Name extends string>(
  name: Name,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
  cpu = 0,
): Promise<RunningServer<Name>> {
  const child = spawnPinned(cpu, [...nodeArgs, path.resolve(ROOT, script), ...args], env);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 8000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not report ready within 60 s`)), 60_000);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(new Error(`${error.message}${stderr ? `\n--- ${name} stderr ---\n${tail(stderr)}` : ""}`));
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
    child.once("error", fail);
    child.once("exit", onExit);
    child.stdout?.on("data", function onData(chunk: Buffer) {
      stdout += chunk.toString("utf8");
      for (const line of stdout.split("\n")) {
        if (!line.startsWith("{")) continue;
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (parsed.ready !== true || typeof parsed.url !== "string" || child.pid === undefined) continue;
        clearTimeout(timer);
        child.off("exit", onExit);
        child.off("error", fail);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve({ name, child, pid: child.pid, url: parsed.url, info: parsed });
        return;
      }
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** A scratch directory removed by `cleanup` (and on exit). */
export function scratchDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join((process.env.TMPDIR ?? "/tmp").replace(/\/+$/, ""), prefix));
  tmpDirs.add(dir);
  return dir;
}

/** Stops every child and removes the scratch directories. */
export async function cleanup(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
  tmpDirs.clear();
}

let interrupted = false;
/** True once SIGINT/SIGTERM started stopping the children (the run's own error path then stays quiet). */
export function wasInterrupted(): boolean {
  return interrupted;
}

process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the servers`);
    void cleanup().finally(() => process.exit(130));
  });
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 5000 }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User and kernel CPU time of a process in µs, from /proc/PID/stat (undefined where /proc is missing). */
export function cpuTimes(pid: number): { userUs: number; systemUs: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      userUs: (Number(fields[11]) / CLK_TCK) * 1e6,
      systemUs: (Number(fields[12]) / CLK_TCK) * 1e6,
    };
  } catch {
    return undefined;
  }
}

/**
 * How long a process's main thread (a Node server's event loop) was ready to run but waited for a CPU, in ms since
 * it started, from /proc/PID/schedstat (undefined where that is missing): on a shared machine, event-loop delay
 * that is other processes' time rather than the server's own work.
 */
export function runQueueWaitMs(pid: number): number | undefined {
  try {
    const waitNs = Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process's CPU time (user + kernel) in µs to the nanosecond, the sum over its threads of
 * /proc/PID/task/TID/schedstat (undefined where /proc is missing): /proc/PID/stat counts in clock ticks (10 ms),
 * which is several percent of a round of a few hundred calls.
 */
export function cpuTimeUs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return ns / 1000;
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in bytes, from /proc/PID/status. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Talks to a child that answers each JSON line on its stdin with one JSON line on its stdout (bench/servers/
 * paid-load.ts, concurrency-load.ts): `ask` sends a message and resolves with the next answer, or rejects when
 * the child exits first.
 */
export function conversation(child: ChildProcess): (message: unknown) => Promise<Record<string, unknown>> {
  const answers = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const waiting: Array<{
    resolve: (answer: Record<string, unknown>) => void;
    reject: (error: Error) => void;
  }> = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = tail(stderr + chunk.toString("utf8"), 4000);
  });
  answers.on("line", (line) => {
    if (line.startsWith("{")) waiting.shift()?.resolve(JSON.parse(line) as Record<string, unknown>);
  });
  child.once("exit", (code) => {
    for (const waiter of waiting.splice(0))
      waiter.reject(new Error(`the load child exited (code ${code}) without answering\n${tail(stderr)}`));
  });
  return (message) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin?.write(`${JSON.stringify(message)}\n`);
    });
}

/** Runs a bench's `main`; on an error prints it, stops the children and exits 1 (after SIGINT/SIGTERM: quietly). */
export function runBench(main: () => Promise<void>): void {
  main().catch(async (error: unknown) => {
    if (wasInterrupted()) return; // the signal handler is already stopping the children and exiting
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    await cleanup();
    process.exit(1);
  });
}
