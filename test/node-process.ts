// paycall as a real process (`node src/main.ts …`, or the JavaScript `npm start` runs), for tests of roles, shutdown and several nodes.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const ROOT = path.resolve(import.meta.dirname, "..");

export interface NodeProcess {
  url: string;
  child: ChildProcess;
  logs: string[];
  exited: Promise<number | null>;
  /** Sends the signal and waits for the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts `node src/main.ts serve` with `env` (or another entry module, such as the built one `npm start` runs,
 * and the flags it gives node) and resolves once it listens.
 */
export async function startNodeProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
  main = "src/main.ts",
  nodeFlags: string[] = [],
): Promise<NodeProcess> {
  const child = spawn(process.execPath, [...nodeFlags, main, "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Killed, not left running: a node nobody stops would hold the test run open (its output is read) and,
      // once nobody reads it, block on its next log line.
      child.kill("SIGKILL");
      reject(new Error(`no listen line in ${timeoutMs} ms:\n${logs.join("\n")}`));
    }, timeoutMs);
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        logs.push(line);
        const listen = /"listen":"([^"]+)"/.exec(line)?.[1];
        if (listen) {
          clearTimeout(timer);
          resolve(`http://${listen}`);
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => logs.push(chunk.toString("utf8")));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${logs.join("\n")}`));
    });
  });
  return {
    url,
    child,
    logs,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A test's node processes, each with a data directory of its own. */
export class NodeFleet {
  readonly nodes: NodeProcess[] = [];
  readonly #dirs: string[] = [];
  readonly #prefix: string;

  /** `prefix`: the name of the nodes' data directories under the system's temporary directory. */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /**
   * Starts a node with `env` and resolves once its /ready answers 200. The bounds are wide: several nodes booting
   * at once on a loaded machine take a while, and may refuse or drop the first connections; a node that exits
   * fails at once.
   */
  async start(env: Record<string, string>): Promise<NodeProcess> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), this.#prefix));
    this.#dirs.push(dir);
    const node = await startNodeProcess({ ...env, DATA_DIR: dir }, 60_000);
    this.nodes.push(node);
    const isReady = async () => {
      if (node.child.exitCode !== null)
        throw new Error(`exited ${node.child.exitCode}:\n${node.logs.join("\n")}`);
      return (await fetch(`${node.url}/ready`).catch(() => undefined))?.ok ? true : undefined;
    };
    await eventually(isReady, 30_000, "/ready");
    return node;
  }

  /** Kills every node (SIGKILL: nothing they would do on the way out matters) and removes their directories. */
  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop("SIGKILL")));
    for (const dir of this.#dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `npm run faucet -- <address> <usd>` against the store `env` names (a running node's): what it printed. */
export async function faucet(env: Record<string, string>, address: string, usd: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["src/main.ts", "faucet", address, usd], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: "silent" },
  });
  return stdout;
}
