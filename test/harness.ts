// Shared test harness: a service with a fresh data directory, answering in this process (or on a loopback port
// where the socket is the point), and a paying buyer.
import fs from "node:fs";
import { STATUS_CODES } from "node:http";
import os from "node:os";
import path from "node:path";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { Family } from "../src/catalog/product.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { type Service, startService } from "../src/service.ts";
import { testDatabase } from "./test-store.ts";

export interface TestService extends Service {
  dataDir: string;
  /** DATABASE_URL and DATABASE_SCHEMA of this service's store (empty on SQLite in dataDir). */
  databaseEnv: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * A service that answers in this process, without a socket: `fetch(service.url + path)` reaches it (see
 * `answerInProcess` below), and so does a paying buyer. Use `startListeningService` where the socket is the point.
 */
export function startTestService(
  env: Record<string, string> = {},
  families?: Family[],
): Promise<TestService> {
  return startHarnessService(env, families, false);
}

/**
 * A service on a loopback port: for listener limits, slow clients, other processes (CLI, cluster nodes, a
 * browser, a proxy) and kill -9.
 */
export function startListeningService(
  env: Record<string, string> = {},
  families?: Family[],
): Promise<TestService> {
  return startHarnessService(env, families, true);
}

async function startHarnessService(
  env: Record<string, string>,
  families: Family[] | undefined,
  listen: boolean,
): Promise<TestService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paycall-test-"));
  const database = testDatabase();
  const config = loadConfig({
    ...database.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    UPSTREAMS: "replay",
    LOG_LEVEL: "silent",
    RUN_WARMERS: "false",
    // Sweeps send hundreds of unpaid requests a minute: the limits are counted but out of reach unless a
    // test sets them (src/abuse/ has the tests that do).
    RATE_LIMIT_PER_MIN: "100000",
    RATE_LIMIT_EXPENSIVE_PER_MIN: "100000",
    ...env,
  });
  const service = await startService(config, {
    log: createLogger("silent"),
    listen,
    ...(families ? { families } : {}),
  });
  if (!listen) inProcess.set(new URL(service.url).host, service.fetch);
  await service.paymentsReady;
  return {
    ...service,
    dataDir,
    databaseEnv: database.env,
    async stop() {
      inProcess.delete(new URL(service.url).host);
      await service.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Requests to an in-process service's host go to its app; everything else to the network. Tests and buyers
 * then call `fetch(url)` as they would against a listener, with the same assertions.
 */
const inProcess = new Map<string, (request: Request) => Promise<Response>>();
const networkFetch = globalThis.fetch;

function answerInProcess(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const service = inProcess.size > 0 ? inProcess.get(hostOf(url)) : undefined;
  if (!service) return networkFetch(input, init);
  return service(new Request(input, init)).then(withReasonPhrase);
}

/** The status line's reason phrase, as Node's listener writes it ("404 Not Found"). */
function withReasonPhrase(response: Response): Response {
  if (response.statusText) return response;
  const { status, headers, body } = response;
  return new Response(body, { status, statusText: STATUS_CODES[status] ?? "", headers });
}

/** By host, http or https alike: a did:web key is fetched over https from the service's own host. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

globalThis.fetch = answerInProcess as typeof fetch;

export function newBuyer(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export function payingFetch(account: PrivateKeyAccount): typeof fetch {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
  return wrapFetchWithPayment(fetch, client) as typeof fetch;
}

/** A buyer that pays with the `upto` scheme only (Permit2: it authorizes the maximum, is charged the use). */
export function uptoPayingFetch(account: PrivateKeyAccount): typeof fetch {
  const client = new x402Client().register("eip155:*", new UptoEvmScheme(account));
  return wrapFetchWithPayment(fetch, client) as typeof fetch;
}

/** The PAYMENT-SIGNATURE header a buyer would send for this URL (captured from the buyer's own retry). */
export async function signedPaymentHeader(account: PrivateKeyAccount, url: string): Promise<string> {
  let header: string | undefined;
  const capture: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const signature = request.headers.get("payment-signature");
    if (signature) {
      header = signature;
      return new Response("{}", { status: 200 });
    }
    return fetch(request);
  };
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
  await wrapFetchWithPayment(capture, client)(url);
  if (!header) throw new Error(`no payment was signed for ${url}`);
  return header;
}

export function decodeBase64Json(value: string | null): Record<string, unknown> {
  if (!value) throw new Error("header missing");
  return JSON.parse(Buffer.from(value, "base64").toString("utf8")) as Record<string, unknown>;
}

/** A product as /catalog.json lists it: what tests walk the routes by. */
export interface CatalogProduct {
  sku: string;
  method: string;
  path: string;
  mode: string;
  example?: Record<string, string>;
  exampleBody?: unknown;
}

/** The paid products of a running service's catalog. */
export async function paidProducts(serviceUrl: string): Promise<CatalogProduct[]> {
  const catalog = (await (await fetch(`${serviceUrl}/catalog.json`)).json()) as {
    products: CatalogProduct[];
  };
  return catalog.products.filter((p) => p.mode === "paid");
}
