// Environment → typed, validated configuration. A bad value is one ConfigError naming the variable.
import path from "node:path";
import { CDP_FACILITATOR_URL, CdpCredentials, CdpKeyError } from "./x402/shared/cdp-credentials.ts";
import { usdToAtomic } from "./x402/shared/money.ts";
import {
  isEvmAddress,
  isSolanaAddress,
  NETWORK_NAMES,
  NETWORKS,
  type NetworkInfo,
} from "./x402/shared/networks.ts";
import { parseSigningKey, Secret, SigningKeyError } from "./x402/shared/signing-secret.ts";

/** Facilitators refuse authorizations within seconds of validBefore; settlement must start before this. */
export const SETTLEMENT_MARGIN_MS = 10_000;
/** The least time a paid handler may be given once verify, settle and the margin are taken out. */
export const MIN_HANDLER_BUDGET_MS = 5_000;
/**
 * Paid calls one node holds at once unless PAID_CALLS_MAX_IN_FLIGHT says otherwise: chosen from the memory a held
 * call was measured to take (docs/operating.md, "Paid calls in flight").
 */
const PAID_CALLS_MAX_IN_FLIGHT = 500;

/** The networks' public JSON-RPC endpoints (rate-limited; set your own provider's URL for production). */
const DEFAULT_RPC_URLS: Record<string, string> = {
  "eip155:8453": "https://mainnet.base.org",
  "eip155:84532": "https://sepolia.base.org",
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "https://api.mainnet-beta.solana.com",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "https://api.devnet.solana.com",
};
export const RPC_VARIABLES: Record<string, string> = {
  "eip155:8453": "BASE_RPC_URL",
  "eip155:84532": "BASE_SEPOLIA_RPC_URL",
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "SOLANA_RPC_URL",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "SOLANA_DEVNET_RPC_URL",
};

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  database:
    | { kind: "sqlite"; file: string }
    | { kind: "postgres"; url: string; schema?: string; poolSize: number };
  /** serve: HTTP only; worker: warmers and jobs only; all: both in one process. */
  role: "all" | "serve" | "worker";
  /** The worker's beat: warmer scheduling, purges and the sweep of interrupted settlements. */
  scheduleEveryMs: number;
  /**
   * How long a claimed job is held without a heartbeat (its worker renews it every third of this) before
   * another worker may take it again.
   */
  jobLeaseMs: number;
  /** Worker slots of each lane on this node (src/jobs/lanes.ts). */
  workerConcurrency: { fetch: number; warm: number; bulk: number };
  /** 3: a lane each for fetches, warmers and bulk imports; 1: every job in one line, in due order. */
  workerLanes: 1 | 3;
  /** How long /ready reports 503 before a SIGTERM stops accepting requests (load balancers notice). */
  shutdownDelayMs: number;
  /** How long a SIGTERM then waits for in-flight requests and the running job before exiting. */
  shutdownGraceMs: number;
  networks: NetworkInfo[];
  payTo: { evm?: string; solana?: string };
  /** The first of `facilitators` (the one payments go to while it is healthy). */
  facilitator: FacilitatorEntry;
  /** FACILITATOR_URL's ordered list: verify and settle go to the first healthy one that supports the payment. */
  facilitators: FacilitatorEntry[];
  /** When a facilitator is set aside and tried again, and how often its /supported is read again. */
  facilitatorHealth: FacilitatorHealth;
  /** Each of verify and settle; derived from maxTimeoutSeconds unless FACILITATOR_TIMEOUT_MS is set. */
  facilitatorTimeoutMs: number;
  maxTimeoutSeconds: number;
  /**
   * What a paid handler may take: maxTimeoutSeconds less verify, settle and SETTLEMENT_MARGIN_MS, so the
   * settlement still reaches the facilitator before the buyer's authorization expires.
   */
  handlerBudgetMs: number;
  /** JSON-RPC endpoint per CAIP-2 network, where uncertain settlements are looked up on chain. */
  rpcUrls: Record<string, string>;
  /** How long one on-chain lookup may take. */
  chainRpcTimeoutMs: number;
  upstreams: "live" | "replay";
  saleDomain?: string;
  adminToken?: string;
  logLevel: LogLevel;
  buyerPrivateKey?: `0x${string}`;
  samplesPerHour: number;
  /** Unpaid requests per client and minute, cluster-wide (src/abuse/); 0: no limit. */
  rateLimitPerMin: number;
  /** Of those, to routes whose 402 costs work (`expensiveChallenge`); 0: no separate limit. */
  rateLimitExpensivePerMin: number;
  /** Prometheus /metrics on its own server on 127.0.0.1 (no token there); 0 picks a free port. */
  metricsPort?: number;
  trustProxy: boolean;
  contact: string;
  operatorName: string;
  /** The Bazaar's `resource.serviceName` in every 402 (SERVICE_NAME; printable ASCII, at most 32). */
  serviceName: string;
  /**
   * x402scan's ownership proofs (OWNERSHIP_PROOFS, comma-separated): the origin signed by each pay-to key, as
   * `npm run ownership-proof` prints it. With the local facilitator's development pay-to, signed at start.
   */
  ownershipProofs: string[];
  workerPollMs: number;
  runWarmers: boolean;
  /** Hand memory back after start, index builds and warmer runs (RELEASE_MEMORY; src/memory-release.ts). */
  releaseMemory: boolean;
  /** Signs offers and receipts (RECEIPT_SIGNING_KEY); unset: generated once into DATA_DIR. Prints redacted. */
  receiptSigningKey?: Secret;
  /**
   * The local facilitator's Solana fee payer (LOCAL_SOLANA_FEE_PAYER_KEY, a base58 64-byte secret): every node of a
   * cluster on the local facilitator must sign with the same one. Unset: generated once into DATA_DIR. Checked as a
   * key pair at start, when a Solana network is served with the local facilitator. Prints redacted.
   */
  localSolanaFeePayerKey?: Secret;
  /** How long a paid answer is kept for a retry with the same payment identifier. */
  paidAnswerRetentionMs: number;
  /**
   * Paid calls this node holds at once, from the admit stage to the end of settlement (PAID_CALLS_MAX_IN_FLIGHT);
   * one more is refused with 503 before verify (src/x402/seller/paid-call/admit.ts).
   */
  paidCallsMaxInFlight: number;
  /** The batch-settlement scheme: its receiver-authorizer key and when the channel manager claims. */
  batch: BatchSettings;
  env: Record<string, string | undefined>;
}

/**
 * batch-settlement (docs/batch-settlement.md). Offered where a facilitator's /supported lists it and this node
 * has a receiver-authorizer key: BATCH_RECEIVER_AUTHORIZER_KEY, or, with the local facilitator and SQLite only,
 * one generated into DATA_DIR. With a remote facilitator or a shared PostgreSQL store the setting is required
 * (every node must sign as one receiver authorizer); without it the scheme is not offered.
 */
export interface BatchSettings {
  /** off: never offered. */
  enabled: boolean;
  /** secp256k1 private key that signs the seller's claims and refunds. Prints redacted. */
  receiverAuthorizerKey?: Secret;
  /** Seconds a buyer must wait between asking to withdraw and withdrawing, written into each channel. */
  withdrawDelaySec: number;
  /** Unclaimed vouchers (atomic USDC, all channels) that start a claim at once (a number: the config prints as JSON). */
  claimThresholdAtomic: number;
  /** A claim runs at least this often while vouchers are unclaimed. */
  claimIntervalMs: number;
}

type Env = Record<string, string | undefined>;

/** One facilitator: the embedded local one, or a remote URL with the headers and CDP key that sign its calls. */
export type FacilitatorEntry =
  | { kind: "local" }
  | { kind: "remote"; url: string; headers: Record<string, string>; cdp?: CdpCredentials };

export interface FacilitatorHealth {
  /** Consecutive failed calls (unreachable, timed out, 5xx, malformed) that open a facilitator's circuit. */
  failureThreshold: number;
  /** How long an open circuit keeps payments away before a probe of /supported may close it. */
  openMs: number;
  /** How often each facilitator's /supported is read again. */
  supportedRefreshMs: number;
}

/** Some facilitator of the list is the embedded one (its routes are mounted, its ledger is the chain). */
export function usesLocalFacilitator(config: Pick<Config, "facilitators">): boolean {
  return config.facilitators.some((f) => f.kind === "local");
}

/**
 * The local facilitator's pretend JSON-RPC node of each network of a kind, by network name: the first network
 * at <PUBLIC_URL>/local-facilitator/<solana|evm>-rpc, every one also at …/<solana|evm>-rpc/<name>.
 */
function localRpcUrls(
  config: Pick<Config, "facilitators" | "networks" | "publicUrl">,
  kind: "svm" | "evm",
): Record<string, string> {
  if (!usesLocalFacilitator(config)) return {};
  const base = `${config.publicUrl.replace(/\/$/, "")}/local-facilitator/${kind === "svm" ? "solana" : "evm"}-rpc`;
  const networks = config.networks.filter((n) => n.kind === kind);
  return Object.fromEntries(networks.map((n, i) => [n.name, i === 0 ? base : `${base}/${n.name}`]));
}

/** Where buyers read the USDC mint and blockhashes of each Solana network in local mode. */
export function localSolanaRpcUrls(
  config: Pick<Config, "facilitators" | "networks" | "publicUrl">,
): Record<string, string> {
  return localRpcUrls(config, "svm");
}

/** Where buyers read batch-settlement channel state (and USDC balances) of each EVM network in local mode. */
export function localEvmRpcUrls(
  config: Pick<Config, "facilitators" | "networks" | "publicUrl">,
): Record<string, string> {
  return localRpcUrls(config, "evm");
}

/** Some facilitator of the list is remote (real money: pay-to addresses are required). */
export function usesRemoteFacilitator(config: Pick<Config, "facilitators">): boolean {
  return config.facilitators.some((f) => f.kind === "remote");
}

function parseServiceName(env: Env): string {
  const name = envString(env, "SERVICE_NAME") ?? "paycall";
  if (!/^[\x20-\x7e]{1,32}$/.test(name)) {
    throw new ConfigError("SERVICE_NAME", "must be 1 to 32 printable ASCII characters (the Bazaar's limit)");
  }
  return name;
}

/** EVM personal_sign signatures (0x + 65 bytes) or Solana ones (base58 of 64 bytes). */
function parseOwnershipProofs(env: Env): string[] {
  const raw = envString(env, "OWNERSHIP_PROOFS");
  if (!raw) return [];
  const proofs = raw
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  for (const proof of proofs) {
    if (!/^0x[0-9a-fA-F]{130}$/.test(proof) && !/^[1-9A-HJ-NP-Za-km-z]{86,88}$/.test(proof)) {
      throw new ConfigError(
        "OWNERSHIP_PROOFS",
        `"${proof.slice(0, 12)}…" is neither an EVM signature (0x + 130 hex digits) nor a Solana one (base58)`,
      );
    }
  }
  return proofs;
}

export function envString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === "" ? undefined : value;
}

export function envInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = envString(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

export function envOneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = envString(env, name);
  if (raw === undefined) return fallback;
  if (!allowed.includes(raw as T))
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as T;
}

export function envBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = envString(env, name);
  if (raw === undefined) return fallback;
  if (["1", "true", "yes"].includes(raw)) return true;
  if (["0", "false", "no"].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function envHttpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

function parseNetworks(env: Env): NetworkInfo[] {
  const raw = envString(env, "NETWORKS") ?? "base";
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new ConfigError("NETWORKS", `must list at least one of ${NETWORK_NAMES.join(", ")}`);
  const seen = new Set<string>();
  return names.map((name) => {
    const info = NETWORKS[name as keyof typeof NETWORKS];
    if (!info)
      throw new ConfigError("NETWORKS", `unknown network "${name}"; allowed: ${NETWORK_NAMES.join(", ")}`);
    if (seen.has(name)) throw new ConfigError("NETWORKS", `lists "${name}" twice`);
    seen.add(name);
    return info;
  });
}

function parseHeaders(env: Env, variable: string): Record<string, string> {
  const raw = envString(env, variable);
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      variable,
      'must be a JSON object of header names to values, e.g. {"Authorization":"Bearer …"}',
    );
  }
  if (
    !parsed ||
    typeof parsed !== "object" ||
    Array.isArray(parsed) ||
    Object.values(parsed).some((v) => typeof v !== "string")
  ) {
    throw new ConfigError(variable, "must be a JSON object whose values are strings");
  }
  return parsed as Record<string, string>;
}

const HEADERS_AT = /^FACILITATOR_HEADERS_(\d+)$/;

/** One FACILITATOR_URL entry: `local`, `cdp` (Coinbase's URL) or an http(s) URL. */
function parseEntryUrl(raw: string): "local" | string {
  if (raw === "local") return raw;
  if (raw === "cdp") return CDP_FACILITATOR_URL;
  return envHttpUrl("FACILITATOR_URL", raw);
}

function onCdpHost(url: string): boolean {
  return new URL(url).host === new URL(CDP_FACILITATOR_URL).host;
}

function parseCdpKey(env: Env, required: boolean): CdpCredentials | undefined {
  const keyId = envString(env, "CDP_API_KEY_ID");
  const keySecret = envString(env, "CDP_API_KEY_SECRET");
  if ((keyId === undefined) !== (keySecret === undefined) || (required && keyId === undefined)) {
    throw new ConfigError(
      keyId === undefined ? "CDP_API_KEY_ID" : "CDP_API_KEY_SECRET",
      required
        ? "is required with Coinbase's facilitator (FACILITATOR=cdp or `cdp` in FACILITATOR_URL; create a key at portal.cdp.coinbase.com)"
        : "CDP_API_KEY_ID and CDP_API_KEY_SECRET are set together or not at all",
    );
  }
  if (keyId === undefined || keySecret === undefined) return undefined;
  try {
    return new CdpCredentials(keyId, keySecret);
  } catch (error) {
    if (error instanceof CdpKeyError) throw new ConfigError("CDP_API_KEY_SECRET", error.message);
    throw new ConfigError("CDP_API_KEY_SECRET", "cannot be read as an Ed25519 or EC key");
  }
}

/**
 * Each remote entry's headers: FACILITATOR_HEADERS_<n> for the n-th entry of FACILITATOR_URL (from 1), or
 * FACILITATOR_HEADERS when the list has one remote entry (the single-facilitator setting it always was).
 */
function parseEntryHeaders(env: Env, urls: string[]): Array<Record<string, string>> {
  const headers = urls.map((): Record<string, string> => ({}));
  const remote = urls.flatMap((url, i) => (url === "local" ? [] : [i]));
  const single = envString(env, "FACILITATOR_HEADERS") !== undefined;
  if (single) {
    if (remote.length !== 1)
      throw new ConfigError(
        "FACILITATOR_HEADERS",
        remote.length === 0
          ? "is only used with FACILITATOR_URL"
          : "is for a single facilitator; with several in FACILITATOR_URL set FACILITATOR_HEADERS_<n> for the n-th (from 1)",
      );
    headers[remote[0] as number] = parseHeaders(env, "FACILITATOR_HEADERS");
  }
  for (const variable of Object.keys(env).filter((k) => HEADERS_AT.test(k))) {
    if (envString(env, variable) === undefined) continue;
    const index = Number(HEADERS_AT.exec(variable)?.[1]) - 1;
    if (!remote.includes(index))
      throw new ConfigError(
        variable,
        index >= 0 && index < urls.length
          ? `entry ${index + 1} of FACILITATOR_URL is the local facilitator, which takes no headers`
          : `FACILITATOR_URL has no entry ${index + 1} (it lists ${urls.length})`,
      );
    if (single && index === remote[0])
      throw new ConfigError(variable, "and FACILITATOR_HEADERS both name the same facilitator; keep one");
    headers[index] = parseHeaders(env, variable);
  }
  return headers;
}

/**
 * FACILITATOR_URL's ordered list (FACILITATOR=cdp: Coinbase's alone; neither: the local one). The CDP key
 * signs a single remote entry (any CDP-compatible facilitator), or, in a list, the entries on Coinbase's host.
 */
function parseFacilitators(env: Env): FacilitatorEntry[] {
  const choice = envOneOf(env, "FACILITATOR", ["local", "cdp"] as const, "local");
  const rawList = envString(env, "FACILITATOR_URL");
  if (choice === "cdp" && rawList !== undefined) {
    throw new ConfigError(
      "FACILITATOR_URL",
      "is not used with FACILITATOR=cdp (Coinbase's URL); list `cdp` in FACILITATOR_URL instead, or for another CDP-compatible facilitator set FACILITATOR_URL and the CDP keys without FACILITATOR",
    );
  }
  const raws = choice === "cdp" ? ["cdp"] : (rawList ?? "local").split(",").map((u) => u.trim());
  if (raws.some((u) => u === "")) throw new ConfigError("FACILITATOR_URL", "has an empty entry");
  const urls = raws.map(parseEntryUrl);
  const twice = urls.find((u, i) => urls.indexOf(u) !== i);
  if (twice) throw new ConfigError("FACILITATOR_URL", `lists ${twice} twice`);
  const remoteCount = urls.filter((u) => u !== "local").length;
  const cdp = parseCdpKey(env, raws.includes("cdp"));
  if (remoteCount === 0 && cdp)
    throw new ConfigError("CDP_API_KEY_ID", "is only used with FACILITATOR=cdp or a FACILITATOR_URL");
  if (cdp && remoteCount > 1 && !urls.some((u) => u !== "local" && onCdpHost(u)))
    throw new ConfigError(
      "CDP_API_KEY_ID",
      "with several facilitators in FACILITATOR_URL the CDP key signs the calls to Coinbase's host only, and none of them is on it",
    );
  const headers = parseEntryHeaders(env, urls);
  return urls.map((url, i): FacilitatorEntry => {
    if (url === "local") return { kind: "local" };
    const signs = cdp && (remoteCount === 1 || onCdpHost(url));
    return { kind: "remote", url, headers: headers[i] ?? {}, ...(signs ? { cdp } : {}) };
  });
}

function parseFacilitatorHealth(env: Env): FacilitatorHealth {
  return {
    failureThreshold: envInteger(env, "FACILITATOR_FAILURE_THRESHOLD", 5, 1, 1000),
    openMs: envInteger(env, "FACILITATOR_OPEN_MS", 30_000, 100, 3600_000),
    supportedRefreshMs: envInteger(env, "FACILITATOR_SUPPORTED_REFRESH_MS", 300_000, 100, 24 * 3600_000),
  };
}

/**
 * The time a paid call may take is what the buyer's authorization allows (maxTimeoutSeconds) less verify,
 * settle and a margin; a configuration that leaves the handler too little is refused.
 */
function parseTimeBudget(
  env: Env,
): Pick<Config, "maxTimeoutSeconds" | "facilitatorTimeoutMs" | "handlerBudgetMs"> {
  const maxTimeoutSeconds = envInteger(env, "MAX_TIMEOUT_SECONDS", 300, 30, 3600);
  const windowMs = maxTimeoutSeconds * 1000;
  const facilitatorTimeoutMs = envInteger(
    env,
    "FACILITATOR_TIMEOUT_MS",
    Math.min(60_000, Math.floor(windowMs / 5)),
    100,
    300_000,
  );
  const handlerBudgetMs = windowMs - 2 * facilitatorTimeoutMs - SETTLEMENT_MARGIN_MS;
  if (handlerBudgetMs < MIN_HANDLER_BUDGET_MS) {
    throw new ConfigError(
      envString(env, "FACILITATOR_TIMEOUT_MS") === undefined
        ? "MAX_TIMEOUT_SECONDS"
        : "FACILITATOR_TIMEOUT_MS",
      `a paid call must fit in MAX_TIMEOUT_SECONDS (${maxTimeoutSeconds} s): verify and settle (2 × ${facilitatorTimeoutMs} ms) and a ${SETTLEMENT_MARGIN_MS / 1000} s settlement margin leave ${Math.max(0, handlerBudgetMs)} ms for the handler, less than ${MIN_HANDLER_BUDGET_MS} ms; lower FACILITATOR_TIMEOUT_MS or raise MAX_TIMEOUT_SECONDS`,
    );
  }
  return { maxTimeoutSeconds, facilitatorTimeoutMs, handlerBudgetMs };
}

function parseRpcUrls(env: Env, networks: NetworkInfo[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const network of networks) {
    const variable = RPC_VARIABLES[network.caip2];
    const fallback = DEFAULT_RPC_URLS[network.caip2];
    if (!variable || !fallback) continue;
    const raw = envString(env, variable);
    urls[network.caip2] = raw === undefined ? fallback : envHttpUrl(variable, raw);
  }
  return urls;
}

function parseDatabase(env: Env, dataDir: string): Config["database"] {
  const databaseUrl = envString(env, "DATABASE_URL");
  if (databaseUrl === undefined) {
    if (envString(env, "DATABASE_SCHEMA") !== undefined) {
      throw new ConfigError("DATABASE_SCHEMA", "is only used with a postgres:// DATABASE_URL");
    }
    return { kind: "sqlite", file: path.join(dataDir, "paycall.sqlite") };
  }
  if (databaseUrl.startsWith("sqlite:")) {
    return { kind: "sqlite", file: path.resolve(databaseUrl.slice("sqlite:".length)) };
  }
  if (/^postgres(ql)?:\/\/./.test(databaseUrl)) {
    const schema = envString(env, "DATABASE_SCHEMA");
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigError("DATABASE_SCHEMA", `must be a lower-case SQL identifier, got "${schema}"`);
    }
    return {
      kind: "postgres",
      url: databaseUrl,
      ...(schema ? { schema } : {}),
      poolSize: envInteger(env, "DATABASE_POOL_SIZE", 10, 1, 200),
    };
  }
  throw new ConfigError(
    "DATABASE_URL",
    `must be postgres://user@host:port/db, sqlite:<file>, or unset for SQLite in DATA_DIR; got "${redactUrl(databaseUrl)}"`,
  );
}

/** The pay-to addresses, and a refusal where a network cannot be paid to. */
function parsePayTo(env: Env, networks: NetworkInfo[], remoteFacilitator: boolean): Config["payTo"] {
  const payTo: Config["payTo"] = {};
  const evm = envString(env, "PAY_TO_EVM");
  const solana = envString(env, "PAY_TO_SOLANA");
  if (evm !== undefined) {
    if (!isEvmAddress(evm))
      throw new ConfigError("PAY_TO_EVM", `must be a 0x-prefixed 20-byte hex address, got "${evm}"`);
    payTo.evm = evm;
  }
  if (solana !== undefined) {
    if (!isSolanaAddress(solana))
      throw new ConfigError("PAY_TO_SOLANA", `must be a base58 Solana address, got "${solana}"`);
    payTo.solana = solana;
  }
  for (const network of networks) {
    // With the local facilitator alone a missing pay-to is generated into DATA_DIR at start.
    if (network.kind === "evm" && !payTo.evm && remoteFacilitator) {
      throw new ConfigError(
        "PAY_TO_EVM",
        `is required for network ${network.name} with a remote facilitator`,
      );
    }
    if (network.kind === "svm" && !payTo.solana && remoteFacilitator) {
      throw new ConfigError(
        "PAY_TO_SOLANA",
        `is required for network ${network.name} with a remote facilitator`,
      );
    }
  }
  return payTo;
}

function parseSaleDomain(env: Env): string | undefined {
  const saleDomain = envString(env, "SALE_DOMAIN")?.toLowerCase();
  if (saleDomain !== undefined && !/^(?=.{1,253}$)([a-z0-9](-*[a-z0-9])*\.)+[a-z]{2,63}$/.test(saleDomain)) {
    throw new ConfigError("SALE_DOMAIN", `must be a domain name such as example.com, got "${saleDomain}"`);
  }
  return saleDomain;
}

/** The buyer key, the receipt signing key and the admin token, each checked for its form; the fee payer's key. */
function parseSecrets(
  env: Env,
): Pick<Config, "buyerPrivateKey" | "receiptSigningKey" | "adminToken" | "localSolanaFeePayerKey"> {
  const buyerKey = envString(env, "BUYER_PRIVATE_KEY");
  if (buyerKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(buyerKey)) {
    throw new ConfigError("BUYER_PRIVATE_KEY", "must be a 0x-prefixed 32-byte hex private key");
  }
  const rawSigningKey = envString(env, "RECEIPT_SIGNING_KEY");
  let receiptSigningKey: Secret | undefined;
  try {
    receiptSigningKey = rawSigningKey === undefined ? undefined : parseSigningKey(rawSigningKey);
  } catch (error) {
    if (error instanceof SigningKeyError) throw new ConfigError("RECEIPT_SIGNING_KEY", error.message);
    throw error;
  }
  const adminToken = envString(env, "ADMIN_TOKEN");
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError("ADMIN_TOKEN", "must be at least 16 characters");
  }
  const feePayerKey = envString(env, "LOCAL_SOLANA_FEE_PAYER_KEY");
  return {
    buyerPrivateKey: buyerKey as `0x${string}` | undefined,
    ...(receiptSigningKey ? { receiptSigningKey } : {}),
    adminToken,
    ...(feePayerKey !== undefined ? { localSolanaFeePayerKey: new Secret(feePayerKey) } : {}),
  };
}

function parseMetricsPort(env: Env, port: number): Pick<Config, "metricsPort"> {
  const metricsPort =
    envString(env, "METRICS_PORT") === undefined ? undefined : envInteger(env, "METRICS_PORT", 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError(
      "METRICS_PORT",
      `must differ from PORT (${port}): metrics are served apart from the API`,
    );
  }
  return metricsPort !== undefined ? { metricsPort } : {};
}

/** The process's role, worker (polling, lanes, leases, concurrency), paid-call limits, memory and shutdown. */
function parseProcessSettings(
  env: Env,
): Pick<
  Config,
  | "workerPollMs"
  | "runWarmers"
  | "releaseMemory"
  | "paidAnswerRetentionMs"
  | "paidCallsMaxInFlight"
  | "role"
  | "scheduleEveryMs"
  | "jobLeaseMs"
  | "workerConcurrency"
  | "workerLanes"
  | "shutdownDelayMs"
  | "shutdownGraceMs"
> {
  return {
    workerPollMs: envInteger(env, "WORKER_POLL_MS", 1000, 10, 60_000),
    runWarmers: envBoolean(env, "RUN_WARMERS", true),
    releaseMemory: envBoolean(env, "RELEASE_MEMORY", true),
    paidAnswerRetentionMs: envInteger(env, "PAID_ANSWER_RETENTION_HOURS", 24, 1, 720) * 3600_000,
    paidCallsMaxInFlight: envInteger(env, "PAID_CALLS_MAX_IN_FLIGHT", PAID_CALLS_MAX_IN_FLIGHT, 1, 100_000),
    role: envOneOf(env, "ROLE", ["all", "serve", "worker"] as const, "all"),
    scheduleEveryMs: envInteger(env, "SCHEDULE_EVERY_MS", 60_000, 500, 3600_000),
    jobLeaseMs: envInteger(env, "JOB_LEASE_MS", 60_000, 1000, 24 * 3600_000),
    workerConcurrency: {
      fetch: envInteger(env, "WORKER_FETCH_CONCURRENCY", 4, 1, 64),
      warm: envInteger(env, "WORKER_WARM_CONCURRENCY", 2, 0, 64),
      bulk: envInteger(env, "WORKER_BULK_CONCURRENCY", 1, 0, 64),
    },
    workerLanes: envOneOf(env, "WORKER_LANES", ["3", "1"] as const, "3") === "1" ? 1 : 3,
    shutdownDelayMs: envInteger(env, "SHUTDOWN_DELAY_MS", 0, 0, 120_000),
    shutdownGraceMs: envInteger(env, "SHUTDOWN_GRACE_MS", 25_000, 0, 600_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const port = envInteger(env, "PORT", 4021, 0, 65535);
  const host = envString(env, "HOST") ?? "0.0.0.0";
  const publicUrl = envHttpUrl("PUBLIC_URL", envString(env, "PUBLIC_URL") ?? `http://localhost:${port}`);
  const dataDir = path.resolve(envString(env, "DATA_DIR") ?? "./data");
  const database = parseDatabase(env, dataDir);
  const networks = parseNetworks(env);
  const facilitators = parseFacilitators(env);
  const payTo = parsePayTo(env, networks, usesRemoteFacilitator({ facilitators }));
  const saleDomain = parseSaleDomain(env);
  const secrets = parseSecrets(env);
  const metricsPort = parseMetricsPort(env, port);
  return {
    port,
    host,
    publicUrl,
    dataDir,
    database,
    networks,
    payTo,
    facilitator: facilitators[0] as FacilitatorEntry,
    facilitators,
    facilitatorHealth: parseFacilitatorHealth(env),
    ...parseTimeBudget(env),
    rpcUrls: parseRpcUrls(env, networks),
    chainRpcTimeoutMs: envInteger(env, "CHAIN_RPC_TIMEOUT_MS", 5000, 100, 60_000),
    upstreams: envOneOf(env, "UPSTREAMS", ["live", "replay"] as const, "live"),
    saleDomain,
    logLevel: envOneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    ...secrets,
    samplesPerHour: envInteger(env, "SAMPLES_PER_HOUR", 5, 0, 10_000),
    rateLimitPerMin: envInteger(env, "RATE_LIMIT_PER_MIN", 600, 0, 1_000_000_000),
    rateLimitExpensivePerMin: envInteger(env, "RATE_LIMIT_EXPENSIVE_PER_MIN", 60, 0, 1_000_000_000),
    ...metricsPort,
    trustProxy: envBoolean(env, "TRUST_PROXY", false),
    contact: envString(env, "CONTACT_EMAIL") ?? "operator@example.invalid",
    operatorName: envString(env, "OPERATOR_NAME") ?? "paycall operator",
    serviceName: parseServiceName(env),
    ownershipProofs: parseOwnershipProofs(env),
    ...parseProcessSettings(env),
    batch: parseBatchSettings(env),
    env,
  };
}

/** Defaults explained in docs/batch-settlement.md ("When the channel manager claims"). */
function parseBatchSettings(env: Env): BatchSettings {
  const rawKey = envString(env, "BATCH_RECEIVER_AUTHORIZER_KEY");
  let receiverAuthorizerKey: Secret | undefined;
  try {
    receiverAuthorizerKey = rawKey === undefined ? undefined : parseSigningKey(rawKey);
  } catch (error) {
    if (error instanceof SigningKeyError)
      throw new ConfigError("BATCH_RECEIVER_AUTHORIZER_KEY", error.message);
    throw error;
  }
  const threshold = envString(env, "BATCH_CLAIM_THRESHOLD_USD") ?? "10";
  let claimThresholdAtomic: number;
  try {
    claimThresholdAtomic = Number(usdToAtomic(threshold));
    if (!Number.isSafeInteger(claimThresholdAtomic)) throw new RangeError(threshold);
  } catch {
    throw new ConfigError(
      "BATCH_CLAIM_THRESHOLD_USD",
      `must be a USD amount such as 10 or 0.5, got "${threshold}"`,
    );
  }
  return {
    enabled: envOneOf(env, "BATCH_SETTLEMENT", ["on", "off"] as const, "on") === "on",
    ...(receiverAuthorizerKey ? { receiverAuthorizerKey } : {}),
    withdrawDelaySec: envInteger(env, "BATCH_WITHDRAW_DELAY_SEC", 86_400, 900, 30 * 86_400),
    claimThresholdAtomic,
    claimIntervalMs: envInteger(env, "BATCH_CLAIM_INTERVAL_SEC", 3600, 1, 7 * 86_400) * 1000,
  };
}

/** A database URL safe to print: the password replaced. */
export function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

/** Base URL of one upstream: `<NAME>_BASE_URL` overrides the documented default. */
export function upstreamBaseUrl(config: Pick<Config, "env">, name: string, fallback: string): string {
  const variable = `${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_BASE_URL`;
  const raw = envString(config.env, variable);
  return raw === undefined ? fallback : envHttpUrl(variable, raw);
}
