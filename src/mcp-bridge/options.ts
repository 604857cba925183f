// `npm run mcp-buy` settings: where paycall's MCP endpoint is, and how much the bridge may spend on its own.
import path from "node:path";
import { CliError } from "../cli-error.ts";
import type { Config } from "../config.ts";
import { usdToAtomic } from "../x402/shared/money.ts";
import { NETWORKS, type NetworkInfo, type NetworkName } from "../x402/shared/networks.ts";

export interface BridgeOptions {
  /** paycall's MCP endpoint (Streamable HTTP). */
  url: string;
  /** No single call above this is paid (atomic USDC). */
  maxPerCall: bigint;
  /** The bridge process pays at most this in all (atomic USDC). */
  maxSession: bigint;
  /** A call above this is paid only once the user confirms it (MCP elicitation). */
  confirmAbove: bigint;
  /** One JSON line per payment settled. */
  receiptsFile: string;
  /** The network the bridge pays on (an EVM network by default: the first exact offer on one). */
  network?: NetworkInfo;
}

/** Each setting's flag and environment variable: refusals name them so the user knows what to raise. */
export const SETTINGS = {
  url: { flag: "--url", env: "PAYCALL_MCP_URL" },
  maxPerCall: { flag: "--max-per-call", env: "MCP_BUY_MAX_PER_CALL_USD", default: "0.10" },
  maxSession: { flag: "--max-session", env: "MCP_BUY_MAX_SESSION_USD", default: "1.00" },
  confirmAbove: { flag: "--confirm-above", env: "MCP_BUY_CONFIRM_ABOVE_USD", default: "0.05" },
  network: { flag: "--network", env: "MCP_BUY_NETWORK" },
} as const;

export const RECEIPTS_FILE = "mcp-buy-receipts.jsonl";

const USAGE =
  "usage: npm run mcp-buy -- [--url <paycall MCP URL>] [--max-per-call <usd>] [--max-session <usd>] [--confirm-above <usd>] [--network base|solana]";

function usd(name: string, value: string): bigint {
  try {
    return usdToAtomic(value);
  } catch {
    throw new CliError(`${name} must be a USD amount such as 0.05, got "${value}"`);
  }
}

export function parseBridgeOptions(
  config: Config,
  argv: string[],
  env: Record<string, string | undefined>,
): BridgeOptions {
  const flags = new Map<string, string>();
  const known = new Set<string>(Object.values(SETTINGS).map((s) => s.flag));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!known.has(arg)) throw new CliError(`unknown argument ${arg}; ${USAGE}`);
    const value = argv[++i];
    if (value === undefined) throw new CliError(`${arg} needs a value; ${USAGE}`);
    flags.set(arg, value);
  }
  const setting = (s: { flag: string; env: string }) => flags.get(s.flag) ?? (env[s.env] || undefined);
  const amount = (s: (typeof SETTINGS)["maxPerCall" | "maxSession" | "confirmAbove"]) =>
    usd(`${s.flag} (${s.env})`, setting(s) ?? s.default);
  const url = setting(SETTINGS.url) ?? `${config.publicUrl}/mcp`;
  if (!/^https?:\/\//.test(url))
    throw new CliError(`--url (PAYCALL_MCP_URL) must be an http(s) URL, got "${url}"`);
  const networkName = setting(SETTINGS.network);
  if (networkName !== undefined && !(networkName in NETWORKS))
    throw new CliError(
      `--network (MCP_BUY_NETWORK) must be one of ${Object.keys(NETWORKS).join(", ")}, got "${networkName}"`,
    );
  return {
    url,
    maxPerCall: amount(SETTINGS.maxPerCall),
    maxSession: amount(SETTINGS.maxSession),
    confirmAbove: amount(SETTINGS.confirmAbove),
    receiptsFile: path.join(config.dataDir, RECEIPTS_FILE),
    ...(networkName ? { network: NETWORKS[networkName as NetworkName] } : {}),
  };
}
