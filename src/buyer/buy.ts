// The buyer CLI: pays one GET or POST request with @x402/fetch (batch-settlement where the 402 offers it, with
// a channel kept in DATA_DIR; else upto where offered; else exact; on Solana exact) and prints status, price,
// the settlement, the signed receipt (the JWS /v1/receipts/verify checks) and body. `--refund` asks the seller
// for the rest of the buyer's batch-settlement channel back.

import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { CliError } from "../cli-error.ts";
import type { Config } from "../config.ts";
import { errorText } from "../json.ts";
import { openServiceStore } from "../service.ts";
import { devBuyerWallet } from "../x402/facilitator/dev-wallets.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import { atomicToUsd, usdToAtomic } from "../x402/shared/money.ts";
import { NETWORKS, type NetworkInfo, type NetworkName } from "../x402/shared/networks.ts";
import { BATCH_SETTLEMENT, batchScheme, refundChannel } from "./batch-buyer.ts";
import { solanaPayer } from "./solana-buyer.ts";

interface BuyArgs {
  method: "GET" | "POST";
  target: string;
  /** A POST request's JSON body, as given. */
  body?: string;
  maxUsd?: string;
  network?: NetworkName;
  /** The scheme to pay with; by default batch-settlement where offered, else upto where offered, else exact. */
  scheme?: Scheme;
  /** A batch-settlement channel's deposit (USD); by default what the seller suggests, within --max. */
  depositUsd?: string;
  /** Ask for the rest of the batch-settlement channel back instead of buying. */
  refund?: boolean;
}

type Scheme = "exact" | "upto" | "batch-settlement";
const SCHEMES: Scheme[] = ["exact", "upto", BATCH_SETTLEMENT];
/** What the buyer pays with when the 402 offers several, best first. */
const PREFERENCE: Scheme[] = [BATCH_SETTLEMENT, "upto"];
const USD_AMOUNT = /^\d+(\.\d{1,6})?$/;

export { CliError };

const DEV_CREDIT_USD = "10";
const DEFAULT_MAX_USD = "1";

const USAGE =
  "usage: npm run buy -- [GET|POST] <path-or-URL> [<json-body> | --body <json>] [--max <usd>] [--network base|solana] [--scheme exact|upto|batch-settlement] [--deposit <usd>] | --refund <path-or-URL>";

/** One option's value into `args`; throws what is wrong with it. */
function takeOption(args: BuyArgs, option: string, value: string): void {
  if (option === "--max" || option === "--deposit") {
    if (!USD_AMOUNT.test(value))
      throw new CliError(`${option} must be a USD amount such as 0.05, got "${value}"`);
    if (option === "--max") args.maxUsd = value;
    else args.depositUsd = value;
  } else if (option === "--network") {
    if (!(value in NETWORKS))
      throw new CliError(`--network must be one of ${Object.keys(NETWORKS).join(", ")}, got "${value}"`);
    args.network = value as NetworkName;
  } else if (option === "--scheme") {
    if (!SCHEMES.includes(value as Scheme))
      throw new CliError(`--scheme must be one of ${SCHEMES.join(", ")}, got "${value}"`);
    args.scheme = value as Scheme;
  } else {
    args.body = value;
  }
}

/** The options that only make sense together, or not at all. */
function checkCombination(args: BuyArgs): void {
  if (args.depositUsd !== undefined) {
    if (args.scheme === "exact" || args.scheme === "upto")
      throw new CliError(`--deposit sizes a batch-settlement channel; --scheme ${args.scheme} makes none`);
    if (usdToAtomic(args.depositUsd) === 0n) throw new CliError("--deposit must be above 0");
    if (usdToAtomic(args.depositUsd) > usdToAtomic(args.maxUsd ?? DEFAULT_MAX_USD))
      throw new CliError(`--deposit ${args.depositUsd} is above --max ${args.maxUsd ?? DEFAULT_MAX_USD} USD`);
  }
  if (args.refund && (args.body !== undefined || args.scheme !== undefined || args.depositUsd !== undefined))
    throw new CliError("--refund takes a path or URL only (and --network)");
  if (
    args.network &&
    NETWORKS[args.network].kind === "svm" &&
    (args.refund || args.scheme === BATCH_SETTLEMENT)
  )
    throw new CliError(`batch-settlement channels are on EVM networks, not ${args.network}`);
}

export function parseBuyArgs(argv: string[]): BuyArgs {
  const args: BuyArgs = { method: "GET", target: "" };
  let method: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--refund") {
      args.refund = true;
    } else if (["--max", "--network", "--body", "--scheme", "--deposit"].includes(arg)) {
      const value = argv[++i];
      if (value === undefined) throw new CliError(`${arg} needs a value`);
      takeOption(args, arg, value);
    } else if (arg.startsWith("--")) {
      throw new CliError(`unknown option ${arg}; ${USAGE}`);
    } else if (!args.target && method === undefined && /^(get|post)$/i.test(arg)) {
      method = arg.toUpperCase();
    } else if (!args.target) {
      args.target = arg;
    } else if (args.body === undefined) {
      args.body = arg;
    } else {
      throw new CliError(`one path or URL and one body only; got "${arg}" too`);
    }
  }
  if (!args.target) throw new CliError(USAGE);
  args.method = (method ?? (args.body !== undefined ? "POST" : "GET")) as BuyArgs["method"];
  if (args.method === "GET" && args.body !== undefined) throw new CliError("a GET request takes no body");
  if (args.body !== undefined) {
    try {
      JSON.parse(args.body);
    } catch {
      throw new CliError(`the body must be JSON, got ${JSON.stringify(args.body.slice(0, 60))}`);
    }
  }
  checkCombination(args);
  return args;
}

/** The compact JWS of the signed receipt a settlement carries (what /v1/receipts/verify checks). */
function receiptJws(settlement: SettleResponse): string | undefined {
  const entry = settlement.extensions?.[OFFER_RECEIPT] as
    | { info?: { receipt?: { signature?: unknown } } }
    | undefined;
  const signature = entry?.info?.receipt?.signature;
  return typeof signature === "string" ? signature : undefined;
}

/** The buyer key: BUYER_PRIVATE_KEY, else DATA_DIR/dev-buyer.json (credited with pretend USDC on the local facilitator). */
export async function buyerKey(config: Config): Promise<`0x${string}`> {
  if (config.buyerPrivateKey) return config.buyerPrivateKey;
  const wallet = devBuyerWallet(config.dataDir);
  if (config.facilitator.kind === "local") {
    // The development buyer is credited in the same store the local facilitator settles against.
    const store = await openServiceStore(config);
    try {
      for (const network of config.networks.filter((n) => n.kind === "evm")) {
        if ((await store.localUsdc.balance(network.caip2, wallet.address)) < 1_000_000n) {
          const balance = await creditWallet(store, network, wallet.address, DEV_CREDIT_USD);
          process.stderr.write(
            `credited development buyer ${wallet.address} on ${network.name}: balance ${balance} USD (pretend USDC)\n`,
          );
        }
      }
    } finally {
      await store.close();
    }
  }
  return wallet.privateKey;
}

function targetUrl(config: Config, target: string): string {
  return /^https?:\/\//.test(target)
    ? target
    : `${config.publicUrl}${target.startsWith("/") ? "" : "/"}${target}`;
}

/** The scheme the buyer pays with among those offered: --scheme, else the best by PREFERENCE, else the first. */
function choose(args: BuyArgs, accepts: PaymentRequirements[]): PaymentRequirements {
  const wanted = args.scheme ? [args.scheme] : PREFERENCE;
  for (const scheme of wanted) {
    const offered = accepts.find((r) => r.scheme === scheme);
    if (offered) return offered;
  }
  return accepts[0] as PaymentRequirements;
}

/** The x402 client with the buyer's wallet registered for the schemes it may pay with. */
async function payingClient(
  config: Config,
  args: BuyArgs,
  url: string,
  env: Record<string, string | undefined>,
): Promise<x402Client> {
  const client = new x402Client((_v, accepts) => choose(args, accepts as PaymentRequirements[]));
  const solana = args.network && NETWORKS[args.network].kind === "svm" ? NETWORKS[args.network] : undefined;
  const maxUsd = args.maxUsd ?? DEFAULT_MAX_USD;
  if (solana) {
    if (args.scheme === "upto")
      throw new CliError(`--scheme upto is not paid on ${solana.name}: Solana purchases pay exact`);
    client.register(solana.caip2, (await solanaPayer(config, solana, url, env)).scheme);
  } else {
    const account = privateKeyToAccount(await buyerKey(config));
    const policy = {
      max: usdToAtomic(maxUsd),
      ...(args.depositUsd ? { deposit: usdToAtomic(args.depositUsd) } : {}),
    };
    // One registration per network: a batch-settlement client reads its own network's chain, and the SDK
    // looks a network's schemes up together.
    for (const network of Object.values(NETWORKS).filter((n) => n.kind === "evm")) {
      client.register(network.caip2, new ExactEvmScheme(account));
      if (args.scheme !== "exact") client.register(network.caip2, new UptoEvmScheme(account));
      if (args.scheme === undefined || args.scheme === BATCH_SETTLEMENT)
        client.register(network.caip2, batchScheme(config, account, network, { serverUrl: url, policy }));
    }
  }
  client.setSpendControls({ maxAmountPerPayment: `$${maxUsd}` });
  if (args.network) {
    const caip2 = NETWORKS[args.network].caip2;
    client.registerPolicy((_v, requirements) => requirements.filter((r) => r.network === caip2));
  }
  return client;
}

/** What the buyer paid, from the settlement: a batch-settlement voucher's charge, a deposit, or a transfer. */
function paidLines(chosen: PaymentRequirements, settlement: SettleResponse): string[] {
  if (chosen.scheme === BATCH_SETTLEMENT) {
    const extra = (settlement.extra ?? {}) as {
      chargedAmount?: string;
      channelState?: { channelId?: string; balance?: string; chargedCumulativeAmount?: string };
    };
    const charged = BigInt(extra.chargedAmount ?? chosen.amount);
    const state = extra.channelState;
    const lines = [
      `price paid: ${atomicToUsd(charged)} USD (batch-settlement voucher) on ${chosen.network} to ${chosen.payTo}`,
    ];
    if (settlement.transaction)
      lines.push(
        `deposited ${atomicToUsd(BigInt(settlement.amount || "0"))} USD into the channel (transaction ${settlement.transaction})`,
      );
    if (state?.balance !== undefined && state.chargedCumulativeAmount !== undefined)
      lines.push(
        `channel ${state.channelId ?? ""}: ${atomicToUsd(BigInt(state.balance) - BigInt(state.chargedCumulativeAmount))} of ${atomicToUsd(BigInt(state.balance))} USD left (npm run buy -- --refund <path> asks for it back)`,
      );
    return lines;
  }
  // upto settles what the call used (PAYMENT-RESPONSE's amount), at most the amount authorized.
  const paid = settlement.amount ?? chosen.amount;
  const upto =
    chosen.scheme === "upto" ? ` (upto: authorized at most ${atomicToUsd(BigInt(chosen.amount))} USD)` : "";
  return [`price paid: ${atomicToUsd(BigInt(paid))} USD${upto} on ${chosen.network} to ${chosen.payTo}`];
}

/** `--refund`: the rest of the buyer's batch-settlement channel with the seller behind `url`, back to the buyer. */
async function refund(
  config: Config,
  args: BuyArgs,
  url: string,
  out: (line: string) => void,
): Promise<number> {
  const network: NetworkInfo =
    (args.network ? NETWORKS[args.network] : config.networks.find((n) => n.kind === "evm")) ?? NETWORKS.base;
  const account = privateKeyToAccount(await buyerKey(config));
  let settlement: SettleResponse;
  try {
    settlement = await refundChannel(config, account, network, url);
  } catch (error) {
    const message = errorText(error);
    if (/fetch failed|ECONNREFUSED/i.test(message + String((error as { cause?: unknown }).cause)))
      throw new CliError(`cannot reach ${url}: is paycall running? (npm start)`);
    throw new CliError(`refund failed: ${message.replace(/^refund failed: /i, "")}`);
  }
  out(`payment-response: ${JSON.stringify(settlement)}`);
  if (!settlement.success)
    throw new CliError(`refund refused: ${settlement.errorReason ?? "no reason given"}`);
  out(
    `refunded: ${atomicToUsd(BigInt(settlement.amount || "0"))} USD to ${account.address} on ${network.name} (transaction ${settlement.transaction})`,
  );
  return 0;
}

/** Pays the request; throws a CliError naming why when it cannot be sent or paid. */
async function pay(client: x402Client, args: BuyArgs, url: string): Promise<Response> {
  try {
    return await wrapFetchWithPayment(fetch, client)(url, {
      method: args.method,
      headers: {
        accept: "application/json",
        ...(args.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(args.body !== undefined ? { body: args.body } : {}),
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = errorText(error);
    if (/fetch failed|ECONNREFUSED/i.test(message + String((error as { cause?: unknown }).cause))) {
      throw new CliError(`cannot reach ${url}: is paycall running? (npm start)`);
    }
    if (/spend|exceed|filtered out/i.test(message)) {
      throw new CliError(
        `not paid: the price is above --max ${args.maxUsd ?? DEFAULT_MAX_USD} USD or no accepted network fits (${message})`,
      );
    }
    throw new CliError(`payment failed: ${message}`);
  }
}

function refusalReason(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

export async function buy(
  config: Config,
  args: BuyArgs,
  out: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const url = targetUrl(config, args.target);
  if (args.refund) return refund(config, args, url, out);
  const client = await payingClient(config, args, url, env);
  let chosen: PaymentRequirements | undefined;
  client.onAfterPaymentCreation(async (context) => {
    chosen = context.selectedRequirements as PaymentRequirements;
  });
  const response = await pay(client, args, url);
  const text = await response.text();
  out(`status: ${response.status} ${response.statusText}`);
  const receiptHeader = response.headers.get("payment-response");
  let answer: { charged?: unknown; retryAfterSec?: unknown } | undefined;
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    answer = undefined;
  }
  const settlement = receiptHeader ? decodePaymentResponseHeader(receiptHeader) : undefined;
  // Only a settled payment costs anything: a 2xx with a receipt. Any other answer charged nothing.
  if (chosen && response.ok && settlement) {
    for (const line of paidLines(chosen, settlement)) out(line);
  } else if (chosen) {
    const retry = typeof answer?.retryAfterSec === "number" ? `; retry after ${answer.retryAfterSec} s` : "";
    out(`nothing was charged (HTTP ${response.status}: the payment was not settled)${retry}`);
  }
  if (settlement) {
    out(`payment-response: ${JSON.stringify(settlement)}`);
    const jws = receiptJws(settlement);
    if (jws) out(`receipt: ${jws}`);
  }
  out(answer === undefined ? text : JSON.stringify(answer, null, 2));
  if (response.status === 402) {
    const reason = refusalReason(text);
    const hint = /permit2_allowance/.test(reason ?? "")
      ? " (upto pays through Permit2: approve Permit2 for USDC once, or pay with --scheme exact)"
      : "";
    throw new CliError(`payment refused by the server: ${reason ?? "no reason given"}${hint}`);
  }
  return response.ok ? 0 : 1;
}
