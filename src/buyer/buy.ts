// The buyer CLI: pays one request with @x402/fetch and prints status, price, receipt and body.

import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";
import { CliError } from "../cli-error.ts";
import type { Config } from "../config.ts";
import { openServiceStore } from "../service.ts";
import { devBuyerWallet } from "../x402/dev-wallets.ts";
import { creditWallet } from "../x402/local-facilitator/facilitator.ts";
import { atomicToUsd } from "../x402/money.ts";
import { NETWORKS, type NetworkName } from "../x402/networks.ts";

export interface BuyArgs {
  target: string;
  maxUsd?: string;
  network?: NetworkName;
}

export { CliError };

const DEV_CREDIT_USD = "10";

export function parseBuyArgs(argv: string[]): BuyArgs {
  const args: BuyArgs = { target: "" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--max" || arg === "--network") {
      const value = argv[++i];
      if (value === undefined) throw new CliError(`${arg} needs a value`);
      if (arg === "--max") {
        if (!/^\d+(\.\d{1,6})?$/.test(value))
          throw new CliError(`--max must be a USD amount such as 0.05, got "${value}"`);
        args.maxUsd = value;
      } else {
        if (!(value in NETWORKS))
          throw new CliError(`--network must be one of ${Object.keys(NETWORKS).join(", ")}, got "${value}"`);
        args.network = value as NetworkName;
      }
    } else if (arg.startsWith("--")) {
      throw new CliError(
        `unknown option ${arg}; usage: npm run buy -- <path-or-URL> [--max <usd>] [--network base]`,
      );
    } else if (!args.target) {
      args.target = arg;
    } else {
      throw new CliError(`one path or URL only; got "${args.target}" and "${arg}"`);
    }
  }
  if (!args.target) throw new CliError("usage: npm run buy -- <path-or-URL> [--max <usd>] [--network base]");
  return args;
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

export async function buy(config: Config, args: BuyArgs, out: (line: string) => void): Promise<number> {
  const url = /^https?:\/\//.test(args.target)
    ? args.target
    : `${config.publicUrl}${args.target.startsWith("/") ? "" : "/"}${args.target}`;
  const account = privateKeyToAccount(await buyerKey(config));
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
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
    response = await pay(url, { headers: { accept: "application/json" } });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
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
  // Only a settled payment costs anything: a 2xx with a receipt. Any other answer charged nothing.
  if (chosen && response.ok && receiptHeader) {
    out(`price paid: ${atomicToUsd(BigInt(chosen.amount))} USD on ${chosen.network} to ${chosen.payTo}`);
  } else if (chosen) {
    const retry = typeof answer?.retryAfterSec === "number" ? `; retry after ${answer.retryAfterSec} s` : "";
    out(`nothing was charged (HTTP ${response.status}: the payment was not settled)${retry}`);
  }
  if (receiptHeader) out(`receipt: ${JSON.stringify(decodePaymentResponseHeader(receiptHeader))}`);
  out(answer === undefined ? text : JSON.stringify(answer, null, 2));
  if (response.status === 402) {
    const reason = (() => {
      try {
        return (JSON.parse(text) as { error?: string }).error;
      } catch {
        return undefined;
      }
    })();
    throw new CliError(`payment refused by the server: ${reason ?? "no reason given"}`);
  }
  return response.ok ? 0 : 1;
}
