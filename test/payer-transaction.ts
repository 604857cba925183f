// A payer's own transaction to the batch-settlement contract (its timed withdrawal), signed as a wallet signs
// it, for the local facilitator's pretend EVM node (eth_sendRawTransaction), which reads only its sender,
// chain, target and calldata.
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import type { Hex, PrivateKeyAccount } from "viem";
import type { NetworkInfo } from "../src/x402/shared/networks.ts";

export function payerTransaction(account: PrivateKeyAccount, network: NetworkInfo, data: Hex): Promise<Hex> {
  return account.signTransaction({
    chainId: network.chainId as number,
    to: BATCH_SETTLEMENT_ADDRESS,
    data,
    nonce: 0,
    gas: 200_000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  });
}
