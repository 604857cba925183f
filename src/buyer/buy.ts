// The buyer CLI: pays one GET or POST request with @x402/fetch (the upto scheme where the 402 offers it, else
// exact; on Solana exact) and prints status, price, the settlement, the signed receipt (the JWS /v1/receipts/verify checks) and body.

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
import { atomicToUsd } from "../x402/shared/money.ts";
import { NETWORKS, type NetworkName } from "../x402/shared/networks.ts";
import { solanaPayer } from "./solana-buyer.ts";

interface BuyArgs {
  method: "GET" | "POST";
  target: string;
  /** A POST request's JSON body, as given. */
  body?: string;
  maxUsd?: string;
  network?: NetworkName;
  /** The scheme to pay with; by default upto where offered, else exact. */
  scheme?: "exact" | "upto";
}

export { CliError };

const DEV_CREDIT_USD = "10";

const USAGE =
  "usage: npm run buy -- [GET|POST] <path-or-URL> [<json-body> | --body <json>] [--max <usd>] [--network base|solana] [--scheme exact|upto]";

export function parseBuyArgs(argv: string[]): BuyArgs {
  const args: BuyArgs = { method: "GET", target: "" };
  let method: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--max" || arg === "--network" || arg === "--body" || arg === "--scheme") {
      const value = argv[++i];
      if (value === undefined) throw new CliError(`${arg} needs a value`);
      if (arg === "--max") {
        if (!/^\d+(\.\d{1,6})?$/.test(value))
          throw new CliError(`--max must be a USD amount such as 0.05, got "${value}"`);
        args.maxUsd = value;
      } else if (arg === "--network") {
        if (!(value in NETWORKS))
          throw new CliError(`--network must be one of ${Object.keys(NETWORKS).join(", ")}, got "${value}"`);
        args.network = value as NetworkName;
      } else if (arg === "--scheme") {
        if (value !== "exact" && value !== "upto")
          throw new CliError(`--scheme must be exact or upto, got "${value}"`);
        args.scheme = value;
      } else {
        args.body = value;
      }
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

export async function buy(
  config: Config,
  args: BuyArgs,
  out: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const url = /^https?:\/\//.test(args.target)
    ? args.target
    : `${config.publicUrl}${args.target.startsWith("/") ? "" : "/"}${args.target}`;
  // upto where the 402 offers it (charged what the call used, at most the price), else the first offer.
  const preferred = args.scheme ?? "upto";
  const client = new x402Client(
    (_v, accepts) => accepts.find((r) => r.scheme === preferred) ?? (accepts[0] as PaymentRequirements),
  );
  const solana = args.network && NETWORKS[args.network].kind === "svm" ? NETWORKS[args.network] : undefined;
  if (solana) {
    if (args.scheme === "upto")
      throw new CliError(`--scheme upto is not paid on ${solana.name}: Solana purchases pay exact`);
    client.register(solana.caip2, (await solanaPayer(config, solana, url, env)).scheme);
  } else {
    const account = privateKeyToAccount(await buyerKey(config));
    client.register("eip155:*", new ExactEvmScheme(account));
    if (args.scheme !== "exact") client.register("eip155:*", new UptoEvmScheme(account));
  }
  client.setSpendControls({ maxAmountPerPayment: args.maxUsd ? `$${args.maxUsd}` : "$1" });
  if (args.network) {
    const caip2 = NETWORKS[args.network].caip2;
    client.registerPolicy((_v, requirements) => requirements.filter((r) => r.network === caip2));
  }
  let chosen: PaymentRequirements | undefined;
  client.onAfterPaymentCreation(async (context) => {
    chosen = context.selectedRequirements as PaymentRequirements;
  });
  const pay = wrapFetchWithPayment(fetch, client);
  let response: Response;
  try {
    response = await pay(url, {
      method: args.method,
      headers: {
        accept: "application/json",
        ...(args.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(args.body !== undefined ? { body: args.body } : {}),
    });
  } catch (error) {
    const message = errorText(error);
    if (/fetch failed|ECONNREFUSED/i.test(message + String((error as { cause?: unknown }).cause))) {
      throw new CliError(`cannot reach ${url}: is paycall running? (npm start)`);
    }
    if (/spend|exceed|filtered out/i.test(message)) {
      throw new CliError(
        `not paid: the price is above --max ${args.maxUsd ?? "1"} USD or no accepted network fits (${message})`,
      );
    }
    throw new CliError(`payment failed: ${message}`);
  }
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
    // upto settles what the call used (PAYMENT-RESPONSE's amount), at most the amount authorized.
    const paid = settlement.amount ?? chosen.amount;
    const upto =
      chosen.scheme === "upto" ? ` (upto: authorized at most ${atomicToUsd(BigInt(chosen.amount))} USD)` : "";
    out(`price paid: ${atomicToUsd(BigInt(paid))} USD${upto} on ${chosen.network} to ${chosen.payTo}`);
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
    const reason = (() => {
      try {
        return (JSON.parse(text) as { error?: string }).error;
      } catch {
        return undefined;
      }
    })();
    const hint = /permit2_allowance/.test(reason ?? "")
      ? " (upto pays through Permit2: approve Permit2 for USDC once, or pay with --scheme exact)"
      : "";
    throw new CliError(`payment refused by the server: ${reason ?? "no reason given"}${hint}`);
  }
  return response.ok ? 0 : 1;
}
