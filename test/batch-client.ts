// A buyer paying with x402's batch-settlement through the SDK's own client (x402Client, @x402/fetch), and what a
// test reads of the pretend chain to check what moved: USDC balances and the channel contract's views, asked of
// the local facilitator's EVM node as any buyer's RPC client would ask them.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, getAddress, http } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { BATCH_CONTRACT, BATCH_CONTRACT_ABI } from "../src/x402/facilitator/batch-contract.ts";
import { LEDGER_USDC_ABI } from "../src/x402/facilitator/ledger-signer.ts";
import { NETWORKS } from "../src/x402/shared/networks.ts";

const base = NETWORKS.base;

export interface BatchBuyer {
  scheme: BatchSettlementEvmScheme;
  /** fetch that pays each 402 with the scheme on Base (deposit first, then vouchers). */
  pay: typeof fetch;
}

/**
 * A batch-settlement buyer on Base: its deposit `deposit` (atomic USDC) when given, else what the seller's 402
 * suggests; its chain reads (recovering a channel it has no record of) go to `rpcUrl` when given.
 */
export function batchBuyer(
  account: PrivateKeyAccount,
  options: { deposit?: bigint; rpcUrl?: string } = {},
): BatchBuyer {
  const signer = options.rpcUrl
    ? toClientEvmSigner(account, createPublicClient({ transport: http(options.rpcUrl) }))
    : account;
  const { deposit } = options;
  const scheme = new BatchSettlementEvmScheme(
    signer,
    deposit === undefined ? {} : { depositStrategy: () => deposit.toString() },
  );
  const client = new x402Client().register(base.caip2, scheme).setSpendControls(false);
  return { scheme, pay: wrapFetchWithPayment(fetch, client) };
}

/** The local facilitator's EVM node for Base, under a running service's origin. */
export function localEvmRpcUrl(serviceUrl: string): string {
  return `${serviceUrl}/local-facilitator/evm-rpc/${base.name}`;
}

/** Views of the pretend chain over JSON-RPC eth_call: USDC balances and the batch-settlement contract. */
export function pretendChain(rpcUrl: string) {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const usdc = getAddress(base.usdc.address);
  return {
    usdc: (holder: string) =>
      client.readContract({
        address: usdc,
        abi: LEDGER_USDC_ABI,
        functionName: "balanceOf",
        args: [getAddress(holder)],
      }),
    /** A channel's balance and what its receiver claimed of it. */
    channel: async (channelId: `0x${string}`) => {
      const [balance, totalClaimed] = await client.readContract({
        address: BATCH_CONTRACT,
        abi: BATCH_CONTRACT_ABI,
        functionName: "channels",
        args: [channelId],
      });
      return { balance, totalClaimed };
    },
    /** What a receiver claimed and had settled to it, every channel together. */
    receiver: async (receiver: string) => {
      const [totalClaimed, totalSettled] = await client.readContract({
        address: BATCH_CONTRACT,
        abi: BATCH_CONTRACT_ABI,
        functionName: "receivers",
        args: [getAddress(receiver), usdc],
      });
      return { totalClaimed, totalSettled };
    },
    contract: BATCH_CONTRACT,
  };
}

/**
 * The buyer's voucher for its next call of `url`, signed against the seller's 402 as the client would sign it,
 * and its PAYMENT-SIGNATURE: for sending one voucher by hand (again, to another node, many times at once).
 */
export async function signedVoucher(
  scheme: BatchSettlementEvmScheme,
  url: string,
): Promise<{ payload: PaymentPayload; header: string }> {
  const challenge = await fetch(url);
  const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required") ?? "");
  const accepted = required.accepts.find((a) => a.scheme === "batch-settlement" && a.network === base.caip2);
  if (!accepted) throw new Error(`${url}: the 402 offers no batch-settlement on ${base.caip2}`);
  const created = await scheme.createPaymentPayload(2, accepted);
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted,
    resource: required.resource,
    payload: created.payload,
  };
  return { payload, header: Buffer.from(JSON.stringify(payload)).toString("base64") };
}

/**
 * Settings of a service whose channel manager claims by the withdraw-delay rule alone: a day's withdraw delay,
 * neither the claim threshold nor the interval (a week) due first, and the worker beat run by the test.
 */
export function withdrawDelayServiceEnv(delaySec: number): Record<string, string> {
  return {
    BATCH_RECEIVER_AUTHORIZER_KEY: `0x${"3c".repeat(32)}`,
    BATCH_WITHDRAW_DELAY_SEC: String(delaySec),
    BATCH_CLAIM_INTERVAL_SEC: String(7 * 86_400),
    WORKER_POLL_MS: "60000",
  };
}
