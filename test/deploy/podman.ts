// podman for the deploy tests, with the private configuration and the base image .ci/container-base.sh makes.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import net from "node:net";
import path from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);

export const repoRoot = path.resolve(import.meta.dirname, "../..");

export interface Podman {
  /** Runs podman with this machine's configuration; rejects on a non-zero exit, with its stderr. */
  (args: string[], options?: { timeoutMs?: number }): Promise<string>;
  env: NodeJS.ProcessEnv;
}

/** Either a podman that can build the Dockerfile, or why not (podman missing, or no base image). */
export async function preparePodman(): Promise<Podman | { skip: string }> {
  try {
    await run("podman", ["--version"]);
  } catch {
    return { skip: "podman is not installed: the container image cannot be built or run here" };
  }
  let printed: string;
  try {
    // Makes the base the first time (debootstrap and npm: minutes), then only prints the environment.
    ({ stdout: printed } = await run(path.join(repoRoot, ".ci/container-base.sh"), [], {
      cwd: repoRoot,
      timeout: 20 * 60_000,
    }));
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim() ?? String(error);
    return { skip: `the base image could not be made, so no engine can run the image: ${stderr}` };
  }
  const env = { ...process.env };
  for (const line of printed.trim().split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) env[line.slice(0, at)] = line.slice(at + 1);
  }
  const podman = async (args: string[], options: { timeoutMs?: number } = {}) => {
    try {
      const { stdout } = await run("podman", args, {
        env,
        cwd: repoRoot,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new Error(`podman ${args.slice(0, 3).join(" ")} failed: ${stderr || String(error)}`);
    }
  };
  return Object.assign(podman, { env });
}

/**
 * The image the deploy tests build, tagged by this checkout's path: two runs from two clones on one machine (two
 * CI runs at once) each test their own tree's image, and a checkout's re-runs reuse its layers.
 */
export const IMAGE = `localhost/paycall:deploy-test-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}`;

/** Builds the Dockerfile as IMAGE (from the layer cache when nothing changed); prints the time and size. */
export async function buildImage(podman: Podman): Promise<void> {
  const started = Date.now();
  // Host networking for the build only: `npm ci` reaches the registry without a bridge or NAT rules.
  await podman(["build", "--format", "docker", "--pull=never", "--network", "host", "--tag", IMAGE, "."], {
    timeoutMs: 20 * 60_000,
  });
  const size = Number(await podman(["image", "inspect", "--format", "{{.Size}}", IMAGE]));
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`image ${IMAGE} built in ${seconds} s; size ${(size / 1e6).toFixed(0)} MB`);
}

/** A deploy test's engine: podman with IMAGE built, or why the file's tests are skipped. */
export class Engine {
  podman: Podman | undefined;
  private skipReason = "";

  /** Prepares podman and builds the image; where that cannot happen, records and prints why. */
  async start(): Promise<Podman | undefined> {
    const prepared = await preparePodman();
    if ("skip" in prepared) {
      this.skip(prepared.skip);
      return undefined;
    }
    await buildImage(prepared);
    this.podman = prepared;
    return prepared;
  }

  skip(reason: string): void {
    this.podman = undefined;
    this.skipReason = reason;
    console.log(`SKIPPED: ${reason}`);
  }

  /** The podman for a test, or undefined after marking the test skipped with the reason. */
  for(t: TestContext): Podman | undefined {
    if (!this.podman) t.skip(this.skipReason);
    return this.podman;
  }
}

/** A loopback port free at the time of asking (for `podman run -p 127.0.0.1:<port>:…`). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `url` until it answers 200, or throws after `timeoutMs`. Returns the seconds it took. */
export async function waitForOk(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.ok) return (Date.now() - started) / 1000;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
