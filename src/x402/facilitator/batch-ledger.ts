// The ledger signer with the x402 batch-settlement contract deployed (batch-contract.ts): the SDK's
// batch-settlement facilitator reads, simulates and sends its transactions here; everything else (USDC,
// Multicall3 over USDC, other receipts) is the base signer's.
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  type Log,
} from "viem";
import { LocalBatchContractRepository } from "../../store/local-batch-contract.ts";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import {
  BATCH_CONTRACT,
  BATCH_CONTRACT_ABI,
  BATCH_WRITES,
  type BatchChain,
  ERC3009_COLLECTOR,
  executeBatchCall,
  readBatchContract,
} from "./batch-contract.ts";
import {
  asAddress,
  asHex,
  delegatedAggregate,
  LedgerRevertError,
  LOCAL_FACILITATOR_ADDRESS,
  MULTICALL3_ADDRESS,
  PRETEND_BYTECODE,
  tryAggregateWith,
} from "./ledger-signer.ts";

export function batchChain(
  store: Store,
  network: NetworkInfo,
  now: () => number = () => Math.floor(Date.now() / 1000),
): BatchChain {
  const eip712 = network.usdc.eip712;
  if (network.kind !== "evm" || network.chainId === undefined || !eip712) {
    throw new Error(`the local batch-settlement contract runs on EVM networks only, not ${network.name}`);
  }
  return {
    contract: new LocalBatchContractRepository(store.db),
    caip2: network.caip2,
    chainId: network.chainId,
    usdc: getAddress(network.usdc.address),
    usdcDomain: eip712,
    sender: LOCAL_FACILITATOR_ADDRESS,
    now,
  };
}

/** A view or simulated call of the contract, its result ABI-encoded as a chain returns it. */
export async function callBatchContractData(chain: BatchChain, data: Hex): Promise<Hex> {
  let decoded: { functionName: string; args?: readonly unknown[] };
  try {
    decoded = decodeFunctionData({ abi: BATCH_CONTRACT_ABI, data });
  } catch {
    throw new LedgerRevertError("bad calldata");
  }
  const value = await readBatchContract(chain, decoded.functionName, decoded.args ?? []);
  if (BATCH_WRITES.has(decoded.functionName)) return "0x";
  return encodeFunctionResult({
    abi: BATCH_CONTRACT_ABI,
    functionName: decoded.functionName,
    result: value,
  } as Parameters<typeof encodeFunctionResult>[0]);
}

/** One Multicall3 entry: answered here when addressed to the contract, else by the base signer. */
async function aggregateCall(
  chain: BatchChain,
  base: FacilitatorEvmSigner,
  call: { target?: unknown; callData?: unknown },
): Promise<{ success: boolean; returnData: Hex }> {
  if (isAddressEqual(asAddress(call?.target), BATCH_CONTRACT)) {
    return { success: true, returnData: await callBatchContractData(chain, asHex(call?.callData)) };
  }
  return delegatedAggregate(base, call);
}

/** The receipt of a contract transaction: success, with the Settled event when it settled. */
async function batchReceipt(
  chain: BatchChain,
  hash: Hex,
): Promise<{ status: string; logs: Log[] } | undefined> {
  const tx = await chain.contract.transaction(chain.caip2, hash);
  if (!tx) return undefined;
  if (!tx.settled) return { status: "success", logs: [] };
  const topics = encodeEventTopics({
    abi: BATCH_CONTRACT_ABI,
    eventName: "Settled",
    args: {
      receiver: getAddress(tx.settled.receiver),
      token: getAddress(tx.settled.token),
      sender: chain.sender,
    },
  });
  const log: Log = {
    address: BATCH_CONTRACT,
    blockHash: hash,
    blockNumber: 1n,
    data: encodeAbiParameters([{ type: "uint128" }], [tx.settled.amount]),
    logIndex: 0,
    transactionHash: hash,
    transactionIndex: 0,
    removed: false,
    topics: topics as [Hex, ...Hex[]],
  };
  return { status: "success", logs: [log] };
}

/**
 * The base ledger signer with the batch-settlement contract and its ERC-3009 deposit collector deployed:
 * calls to the contract are answered by the pretend contract, everything else by the base signer.
 */
export function withBatchSettlement(
  base: FacilitatorEvmSigner,
  store: Store,
  network: NetworkInfo,
  now?: () => number,
): FacilitatorEvmSigner {
  const chain = batchChain(store, network, now);
  return {
    ...base,
    getAddresses: () => base.getAddresses(),

    async getCode(params) {
      if (
        isAddressEqual(params.address, BATCH_CONTRACT) ||
        isAddressEqual(params.address, ERC3009_COLLECTOR)
      ) {
        return PRETEND_BYTECODE;
      }
      return base.getCode(params);
    },

    async readContract(params) {
      const { address, functionName, args } = params;
      if (isAddressEqual(address, MULTICALL3_ADDRESS) && functionName === "tryAggregate")
        return tryAggregateWith(args, (call) => aggregateCall(chain, base, call));
      if (isAddressEqual(address, BATCH_CONTRACT)) return readBatchContract(chain, functionName, args ?? []);
      return base.readContract(params);
    },

    async writeContract(params) {
      if (!isAddressEqual(params.address, BATCH_CONTRACT)) return base.writeContract(params);
      if (!BATCH_WRITES.has(params.functionName)) {
        throw new LedgerRevertError(
          `the local batch-settlement contract cannot execute ${params.functionName}`,
        );
      }
      return executeBatchCall(chain, params.functionName, params.args ?? []);
    },

    async waitForTransactionReceipt(params) {
      return (await batchReceipt(chain, params.hash)) ?? base.waitForTransactionReceipt(params);
    },
  };
}
