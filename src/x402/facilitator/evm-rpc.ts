// A pretend EVM JSON-RPC node over the local facilitator's chain, for buyers whose batch-settlement client reads
// channel state on chain (a signer with `readContract`: recovery after a restart, a corrective 402), and for the
// seller's chain checks of lost claims and settlements: the batch-settlement contract's views and the USDC
// contract's, answered from the store. Transactions reach the pretend chain through x402 settle, except a
// payer's own timed withdrawal (initiateWithdraw, finalizeWithdraw), which it signs and sends here
// (eth_sendRawTransaction: the sender is recovered from the signature; the node keeps no account nonces, the
// contract's own state refuses a repeat).
import {
  decodeFunctionData,
  encodeErrorResult,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
} from "viem";
import { isObject } from "../../json.ts";
import type { Store } from "../../store/store.ts";
import type { NetworkInfo } from "../shared/networks.ts";
import {
  BATCH_CONTRACT,
  BATCH_CONTRACT_ABI,
  BATCH_WRITES,
  ERC3009_COLLECTOR,
  executeBatchCall,
} from "./batch-contract.ts";
import { batchChain, callBatchContractData } from "./batch-ledger.ts";
import { type JsonRpc, jsonRpcOver, RpcError, type RpcMethods } from "./json-rpc.ts";
import {
  createLedgerSigner,
  LEDGER_USDC_ABI,
  LedgerRevertError,
  MULTICALL3_ADDRESS,
  PRETEND_BYTECODE,
} from "./ledger-signer.ts";

const USDC_VIEWS = new Set(["balanceOf", "name", "version", "symbol", "decimals", "authorizationState"]);
/** The transactions a payer sends this node itself: its timed withdrawal. */
const PAYER_TRANSACTIONS = new Set(["initiateWithdraw", "finalizeWithdraw"]);
const REVERT_ABI = [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }] as const;

function hexParam(value: unknown, name: string, bytes?: number): Hex {
  const pattern = bytes === undefined ? /^0x([0-9a-fA-F]{2})*$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`);
  if (typeof value !== "string" || !pattern.test(value))
    throw new RpcError(
      -32602,
      `Invalid params: ${name} must be ${bytes ? `${bytes} bytes` : "bytes"} of 0x hex`,
    );
  return value as Hex;
}

/** A call that reverts, as a node reports it: code 3, the reason ABI-encoded in `data`. */
function reverted(reason: string): RpcError {
  return new RpcError(
    3,
    `execution reverted: ${reason}`,
    encodeErrorResult({ abi: REVERT_ABI, errorName: "Error", args: [reason] }),
  );
}

function selectorOf(abi: typeof BATCH_CONTRACT_ABI | typeof LEDGER_USDC_ABI, data: Hex): string {
  try {
    return decodeFunctionData({ abi, data }).functionName;
  } catch {
    throw reverted("bad calldata");
  }
}

function methods(store: Store, network: NetworkInfo, now?: () => number): RpcMethods {
  const chain = batchChain(store, network, now);
  const usdcSigner = createLedgerSigner(store, network);
  const usdc = getAddress(network.usdc.address);
  const deployed = [BATCH_CONTRACT, ERC3009_COLLECTOR, MULTICALL3_ADDRESS, usdc];

  async function call(to: `0x${string}`, data: Hex): Promise<Hex> {
    if (isAddressEqual(to, BATCH_CONTRACT)) {
      if (BATCH_WRITES.has(selectorOf(BATCH_CONTRACT_ABI, data)))
        throw reverted("this node answers views only; transactions go through the facilitator");
      return callBatchContractData(chain, data);
    }
    if (isAddressEqual(to, usdc)) {
      if (!USDC_VIEWS.has(selectorOf(LEDGER_USDC_ABI, data))) throw reverted("this node answers views only");
      const decoded = decodeFunctionData({ abi: LEDGER_USDC_ABI, data });
      const result = await usdcSigner.readContract({
        address: usdc,
        abi: LEDGER_USDC_ABI,
        functionName: decoded.functionName,
        args: decoded.args ?? [],
      });
      return encodeFunctionResult({
        abi: LEDGER_USDC_ABI,
        functionName: decoded.functionName,
        result,
      } as Parameters<typeof encodeFunctionResult>[0]);
    }
    return "0x";
  }

  /** A payer's signed timed-withdrawal transaction, run on the pretend contract as sent by its signer. */
  async function sendRaw(serialized: Hex): Promise<Hex> {
    let tx: ReturnType<typeof parseTransaction>;
    let sender: `0x${string}`;
    try {
      tx = parseTransaction(serialized);
      sender = await recoverTransactionAddress({
        serializedTransaction: serialized as TransactionSerialized,
      });
    } catch {
      throw new RpcError(-32602, "Invalid params: not a signed transaction");
    }
    if (tx.chainId !== network.chainId) throw new RpcError(-32000, "invalid chain id");
    if (!tx.to || !isAddressEqual(tx.to, BATCH_CONTRACT) || !tx.data)
      throw new RpcError(
        -32000,
        "this node takes only a payer's timed withdrawal from the batch-settlement contract",
      );
    const name = selectorOf(BATCH_CONTRACT_ABI, tx.data);
    if (!PAYER_TRANSACTIONS.has(name))
      throw reverted(
        "this node takes initiateWithdraw and finalizeWithdraw only; other transactions go through the facilitator",
      );
    const decoded = decodeFunctionData({ abi: BATCH_CONTRACT_ABI, data: tx.data });
    return executeBatchCall(chain, name, decoded.args ?? [], getAddress(sender));
  }

  return {
    eth_chainId: async () => `0x${(network.chainId as number).toString(16)}`,
    net_version: async () => String(network.chainId),
    eth_blockNumber: async () => `0x${Math.floor(Date.now() / 1000).toString(16)}`,
    eth_getBalance: async (params) => {
      hexParam(params[0], "address", 20);
      return "0x0";
    },
    eth_getCode: async (params) => {
      const address = hexParam(params[0], "address", 20);
      return deployed.some((a) => isAddressEqual(a, address)) ? PRETEND_BYTECODE : "0x";
    },
    eth_call: async (params) => {
      const tx = params[0];
      if (!isObject(tx)) throw new RpcError(-32602, "Invalid params: the call must be an object");
      const to = hexParam(tx.to, "to", 20);
      const data = hexParam(tx.data ?? tx.input ?? "0x", "data");
      try {
        return await call(to, data);
      } catch (error) {
        if (error instanceof LedgerRevertError) throw reverted(error.reason);
        throw error;
      }
    },
    eth_sendRawTransaction: async (params) => {
      try {
        return await sendRaw(hexParam(params[0], "transaction"));
      } catch (error) {
        if (error instanceof LedgerRevertError) throw reverted(error.reason);
        throw error;
      }
    },
  };
}

/** JSON-RPC 2.0 over the methods above, for one EVM network of the local facilitator. */
export function createEvmRpc(store: Store, network: NetworkInfo, now?: () => number): JsonRpc {
  if (network.kind !== "evm") throw new Error(`no EVM node for ${network.name}`);
  return jsonRpcOver(methods(store, network, now));
}
