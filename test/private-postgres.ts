// A PostgreSQL cluster of one's own (initdb into a temporary directory, on a free loopback port), for tests and
// benches that stop and start the database: the machine's shared server is never touched. Under root the
// cluster runs as the `postgres` user, as PostgreSQL refuses to run as root.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** pg_ctl stop -m fast: every connection is cut, as in a restart or a failover. */
  stop: () => void;
  start: () => void;
  /** Stops the cluster and removes its directory. */
  destroy: () => void;
}

/** The directory holding initdb and pg_ctl, or undefined when PostgreSQL is not installed here. */
export function postgresBinaries(): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? "").split(path.delimiter),
    ...listDirs("/usr/lib/postgresql").map((v) => path.join("/usr/lib/postgresql", v, "bin")),
  ];
  return candidates.find(
    (dir) => dir && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl")),
  );
}

function listDirs(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort().reverse();
  } catch {
    return [];
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The uid and gid to run the cluster as: the `postgres` user under root, else this process's own. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

export async function startPrivatePostgres(binaries: string): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-pg-"));
  const owner = clusterOwner();
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const data = path.join(dir, "data");
  const run = (tool: string, args: string[]) =>
    execFileSync(path.join(binaries, tool), args, {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
      env: { ...process.env, LC_ALL: "C" },
    });
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c shared_buffers=16MB",
    "-c max_connections=60",
  ].join(" ");
  const log = path.join(dir, "server.log");
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"]);
  const stop = (mode = "fast") => run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: () => stop("fast"),
    start,
    destroy: () => {
      try {
        stop("immediate");
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
