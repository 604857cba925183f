// The x402 batch-settlement contract's state as the chain reports it, for the channel manager's claims and
// settlements whose answer was lost: each channel's claimed total (`channels`) and what the pay-to claimed and
// settled (`receivers`), read over the network's RPC (RPC_URL_*, as exact's chain checks), or with the local
// facilitator from its pretend EVM node in process.
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { createPublicClient, http, parseAbi } from "viem";
import type { Config } from "../../../config.ts";
import type { Store } from "../../../store/store.ts";
import { networkByCaip2 } from "../../shared/networks.ts";
import { ChainUnreachableError, rpcErrorText } from "./verdict.ts";

/** The contract's two views read here (as in the SDK's batchSettlementABI). */
const BATCH_VIEWS = parseAbi([
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)",
]);
/** JSON-RPC calls sent in one batch (a claim reads up to 100 channels). */
const RPC_BATCH = 50;

export interface ChannelTotals {
  balance: bigint;
  totalClaimed: bigint;
}

export interface ReceiverTotals {
  totalClaimed: bigint;
  totalSettled: bigint;
}

export interface BatchContractReader {
  /** Each channel's on-chain totals, keyed by its id in lower case. Throws ChainUnreachableError. */
  channels(channelIds: readonly string[]): Promise<Map<string, ChannelTotals>>;
  /** What `receiver` claimed and settled of `token` in all. Throws ChainUnreachableError. */
  receiver(receiver: string, token: string): Promise<ReceiverTotals>;
}

export function evmBatchContractReader(options: {
  rpcUrl: string;
  timeoutMs: number;
  /** How requests are sent (the local facilitator's node answers in process). */
  fetchImpl?: typeof fetch;
}): BatchContractReader {
  const client = createPublicClient({
    transport: http(options.rpcUrl, {
      timeout: options.timeoutMs,
      retryCount: 1,
      batch: { batchSize: RPC_BATCH },
      ...(options.fetchImpl ? { fetchFn: options.fetchImpl } : {}),
    }),
  });
  const address = BATCH_SETTLEMENT_ADDRESS as `0x${string}`;
  async function asked<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw new ChainUnreachableError(rpcErrorText(options.rpcUrl, error));
    }
  }
  return {
    channels: (channelIds) =>
      asked(async () => {
        // One block for every channel: the claim applied to all of them or to none.
        const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
        const totals = await Promise.all(
          channelIds.map((id) =>
            client.readContract({
              address,
              abi: BATCH_VIEWS,
              functionName: "channels",
              args: [id as `0x${string}`],
              blockNumber,
            }),
          ),
        );
        return new Map(
          channelIds.map((id, i) => {
            const [balance, totalClaimed] = totals[i] as readonly [bigint, bigint];
            return [id.toLowerCase(), { balance, totalClaimed }];
          }),
        );
      }),
    receiver: (receiver, token) =>
      asked(async () => {
        const [totalClaimed, totalSettled] = await client.readContract({
          address,
          abi: BATCH_VIEWS,
          functionName: "receivers",
          args: [receiver as `0x${string}`, token as `0x${string}`],
        });
        return { totalClaimed, totalSettled };
      }),
  };
}

/** The reader of each EVM network: the local facilitator's pretend node, else the network's RPC, else none. */
export function createBatchContractReaders(
  config: Config,
  store: Store,
): (network: string) => BatchContractReader {
  const readers = new Map<string, BatchContractReader>();
  for (const network of config.networks) {
    if (network.kind !== "evm") continue;
    const rpcUrl = config.rpcUrls[network.caip2];
    if (config.facilitator.kind === "local")
      readers.set(network.caip2, localReader(store, network.caip2, config.chainRpcTimeoutMs));
    else if (rpcUrl)
      readers.set(network.caip2, evmBatchContractReader({ rpcUrl, timeoutMs: config.chainRpcTimeoutMs }));
  }
  return (network) => readers.get(network) ?? unreachable(network);
}

/** The local facilitator's pretend EVM node, loaded on the first read (only a lost answer needs it). */
function localReader(store: Store, caip2: string, timeoutMs: number): BatchContractReader {
  let reader: Promise<BatchContractReader> | undefined;
  const load = () =>
    (reader ??= (async () => {
      const [{ createEvmRpc }, { inProcessFetch }] = await Promise.all([
        import("../../facilitator/evm-rpc.ts"),
        import("../../facilitator/json-rpc.ts"),
      ]);
      const network = networkByCaip2(caip2);
      if (!network) throw new ChainUnreachableError(`no local chain for ${caip2}`);
      return evmBatchContractReader({
        rpcUrl: `http://local-evm-rpc.invalid/${network.name}`,
        timeoutMs,
        fetchImpl: inProcessFetch(createEvmRpc(store, network)),
      });
    })());
  return {
    channels: async (ids) => (await load()).channels(ids),
    receiver: async (receiver, token) => (await load()).receiver(receiver, token),
  };
}

function unreachable(network: string): BatchContractReader {
  const fail = async (): Promise<never> => {
    throw new ChainUnreachableError(
      `no RPC is configured for ${networkByCaip2(network)?.name ?? network}; set its RPC URL or check by hand`,
    );
  };
  return { channels: fail, receiver: fail };
}
