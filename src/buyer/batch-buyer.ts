// Paying with batch-settlement: the SDK's client scheme, one per EVM network, its channels kept in
// DATA_DIR/buyer-channels (so the next `npm run buy` pays the same channel with a voucher, and `--refund` finds
// it), its chain reads (recovering a channel it has no record of) answered by the local facilitator's EVM node
// in local mode, else the network's RPC; and the deposit sized within --max.
import path from "node:path";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import type { SettleResponse } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import {
  type BatchSettlementDepositStrategy,
  BatchSettlementEvmScheme,
} from "@x402/evm/batch-settlement/client";
import { FileClientChannelStorage } from "@x402/evm/batch-settlement/client/file-storage";
import { createPublicClient, http } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { CliError } from "../cli-error.ts";
import type { Config } from "../config.ts";
import { atomicToUsd, usdToAtomic } from "../x402/shared/money.ts";
import type { NetworkInfo } from "../x402/shared/networks.ts";

export const BATCH_SETTLEMENT = "batch-settlement";
/** Where the buyer's channels are kept, under DATA_DIR. */
export const BUYER_CHANNELS_DIR = "buyer-channels";
/** Where the local facilitator answers EVM JSON-RPC, under the paying server's origin (then the network's name). */
const LOCAL_EVM_RPC_PATH = "/local-facilitator/evm-rpc";

export interface DepositPolicy {
  /** The deposit asked for (atomic USDC); by default what the seller's 402 suggests. */
  deposit?: bigint;
  /** No deposit above this (atomic USDC): the buyer's --max. */
  max: bigint;
}

/** The node a buyer's channel reads go to: the paying server's pretend node in local mode, else the network's RPC. */
function evmNodeUrl(config: Config, network: NetworkInfo, serverUrl: string): string | undefined {
  if (config.facilitator.kind === "local")
    return new URL(`${LOCAL_EVM_RPC_PATH}/${network.name}`, serverUrl).toString();
  return config.rpcUrls[network.caip2];
}

/** The deposit: --deposit, else the seller's suggestion; never above --max nor below what this call needs. */
export function depositStrategy(policy: DepositPolicy): BatchSettlementDepositStrategy {
  return (context) => {
    const needed = BigInt(context.minimumDepositAmount);
    let deposit = policy.deposit ?? BigInt(context.depositAmount);
    if (deposit > policy.max) deposit = policy.max;
    if (deposit < needed) {
      throw new CliError(
        `the channel needs a deposit of at least ${atomicToUsd(needed)} USD, above --max ${atomicToUsd(policy.max)} USD${policy.deposit ? ` or --deposit ${atomicToUsd(policy.deposit)} USD` : ""}`,
      );
    }
    return deposit;
  };
}

/** The batch-settlement client scheme for one EVM network, its channels in DATA_DIR. */
export function batchScheme(
  config: Config,
  account: PrivateKeyAccount,
  network: NetworkInfo,
  options: { serverUrl: string; policy: DepositPolicy },
): BatchSettlementEvmScheme {
  const nodeUrl = evmNodeUrl(config, network, options.serverUrl);
  const signer = nodeUrl
    ? toClientEvmSigner(account, createPublicClient({ transport: http(nodeUrl) }))
    : account;
  return new BatchSettlementEvmScheme(signer, {
    storage: new FileClientChannelStorage({ directory: path.join(config.dataDir, BUYER_CHANNELS_DIR) }),
    depositStrategy: depositStrategy(options.policy),
  });
}

/** A fetch whose 402 answers offer only `network`'s batch-settlement: the SDK's refund takes the first one. */
function offeringOnly(network: NetworkInfo): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const header = response.headers.get("payment-required");
    if (response.status !== 402 || !header) return response;
    const required = decodePaymentRequiredHeader(header);
    const accepts = required.accepts.filter(
      (a) => a.scheme === BATCH_SETTLEMENT && a.network === network.caip2,
    );
    const headers = new Headers(response.headers);
    headers.set("payment-required", encodePaymentRequiredHeader({ ...required, accepts }));
    return new Response(response.body, { status: response.status, headers });
  };
}

/** Asks the seller behind `url` for the rest of the buyer's channel back on `network`: the scheme's refund flow. */
export async function refundChannel(
  config: Config,
  account: PrivateKeyAccount,
  network: NetworkInfo,
  url: string,
): Promise<SettleResponse> {
  const scheme = batchScheme(config, account, network, { serverUrl: url, policy: { max: usdToAtomic("0") } });
  return scheme.refund(url, { fetch: offeringOnly(network) });
}
