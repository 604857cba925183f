// Real reverse proxies for the deploy tests: finding the Debian package's binary (a missing one is a
// skip with a message, or a failure under CI=true), free loopback ports, a throwaway TLS certificate, and the
// proxy run in the foreground as a child process with its config in a temporary directory.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** Where .ci/prepare-deploy.sh writes the packages it could not install (one a line). */
export const INSTALL_FAILED_FILE = path.join(os.tmpdir(), "paycall-deploy-install.failed");

const SEARCH_PATH = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/bin", "/sbin"];

function findExecutable(name: string): string | undefined {
  for (const dir of SEARCH_PATH) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * The binary's path, or the reason to skip (printed, naming the Debian package). Under CI=true a missing
 * binary throws, unless .ci/prepare-deploy.sh recorded that installing its package failed.
 */
export function locateBinary(binary: string, debianPackage: string): { path: string } | { skip: string } {
  const found = findExecutable(binary);
  if (found) return { path: found };
  const failedInstalls = fs.existsSync(INSTALL_FAILED_FILE)
    ? fs.readFileSync(INSTALL_FAILED_FILE, "utf8").split("\n")
    : [];
  const reason = `${binary} is not installed (Debian package ${debianPackage}; .ci/prepare-deploy.sh installs it)`;
  if (process.env.CI === "true" && !failedInstalls.includes(debianPackage)) {
    throw new Error(`${reason}: under CI=true the deploy tests need it`);
  }
  const skip = failedInstalls.includes(debianPackage) ? `${reason}; its install failed in this run` : reason;
  console.log(`SKIPPED: ${skip}`);
  return { skip };
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Certificate {
  certFile: string;
  keyFile: string;
  /** Certificate then key in one file, as HAProxy takes them. */
  pemFile: string;
  certPem: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export function selfSignedCertificate(dir: string): Certificate {
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  const pemFile = path.join(dir, "combined.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
      ...["-keyout", keyFile, "-out", certFile],
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const certPem = fs.readFileSync(certFile, "utf8");
  fs.writeFileSync(pemFile, certPem + fs.readFileSync(keyFile, "utf8"));
  return { certFile, keyFile, pemFile, certPem };
}

export interface RunningProxy {
  /** The proxy's output so far (its error log goes to stderr). */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts `argv` in the foreground, its output going to `logFile` (a file, not a pipe: Apache cannot open
 * /dev/stderr on a socket), and resolves once `readyUrl` answers 200 through it.
 */
export async function startProxy(
  argv: string[],
  options: { readyUrl: string; logFile: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<RunningProxy> {
  const [command, ...args] = argv as [string, ...string[]];
  const log = fs.openSync(options.logFile, "a");
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", log, log],
  });
  fs.closeSync(log);
  const output = () => fs.readFileSync(options.logFile, "utf8");
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${argv.join(" ")} exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    }
    try {
      const response = await fetch(options.readyUrl);
      await response.arrayBuffer();
      if (response.status === 200) return { output, stop };
    } catch {}
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${argv.join(" ")} did not answer ${options.readyUrl}:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `text` with each `[from, to]` replaced (every occurrence). A `from` that is not there throws: the shipped
 * file changed and the test must follow it, rather than test something else.
 */
export function substitute(text: string, replacements: Array<[string, string]>, what: string): string {
  let result = text;
  for (const [from, to] of replacements) {
    if (!result.includes(from)) throw new Error(`${what} no longer contains ${JSON.stringify(from)}`);
    result = result.replaceAll(from, to);
  }
  return result;
}
