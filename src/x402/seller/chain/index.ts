// Which chain answers for a network: the local ledger with the local facilitator (on Solana through its pretend
// RPC, called in process), else the network's RPC.
import type { Config } from "../../../config.ts";
import type { Store } from "../../../store/store.ts";
import { networkByCaip2 } from "../../shared/networks.ts";
import { localSettlementChain } from "./local.ts";
import { ChainUnreachableError, type SettlementChain } from "./verdict.ts";

export { ChainUnreachableError, type ChainVerdict, type SettlementChain } from "./verdict.ts";

/** Base produces a block every two seconds (docs.base.org, "Network information"). */
const BLOCK_TIME_SEC = 2;

/**
 * A chain whose RPC client (viem's, or Solana Kit's decoders) is imported on its first check: settlements the
 * facilitator leaves uncertain are rare, and the Solana code is about 60 modules a server would otherwise hold.
 */
function loadedOnFirstCheck(load: () => Promise<SettlementChain>): SettlementChain {
  let chain: Promise<SettlementChain> | undefined;
  return {
    async check(lookup) {
      chain ??= load();
      return (await chain).check(lookup);
    },
  };
}

export function createSettlementChains(config: Config, store: Store): (network: string) => SettlementChain {
  const chains = new Map<string, SettlementChain>();
  const local = config.facilitator.kind === "local" ? localSettlementChain(store) : undefined;
  for (const network of config.networks) {
    const rpcUrl = config.rpcUrls[network.caip2];
    if (local && network.kind === "evm") chains.set(network.caip2, local);
    else if (local && network.kind === "svm")
      chains.set(
        network.caip2,
        loadedOnFirstCheck(async () => {
          const [{ solanaSettlementChain }, { createSolanaRpc, inProcessFetch }] = await Promise.all([
            import("./solana.ts"),
            import("../../facilitator/solana-rpc.ts"),
          ]);
          return solanaSettlementChain({
            rpcUrl: `local pretend Solana RPC (${network.name})`,
            timeoutMs: config.chainRpcTimeoutMs,
            fetchImpl: inProcessFetch(createSolanaRpc(store, network)),
          });
        }),
      );
    else if (rpcUrl && network.kind === "evm")
      chains.set(
        network.caip2,
        loadedOnFirstCheck(async () =>
          (await import("./evm.ts")).evmSettlementChain({
            rpcUrl,
            timeoutMs: config.chainRpcTimeoutMs,
            blockTimeSec: BLOCK_TIME_SEC,
          }),
        ),
      );
    else if (rpcUrl)
      chains.set(
        network.caip2,
        loadedOnFirstCheck(async () =>
          (await import("./solana.ts")).solanaSettlementChain({
            rpcUrl,
            timeoutMs: config.chainRpcTimeoutMs,
          }),
        ),
      );
  }
  return (network) =>
    chains.get(network) ?? {
      check: async () => {
        throw new ChainUnreachableError(
          `no RPC is configured for ${networkByCaip2(network)?.name ?? network}; check the settlement by hand`,
        );
      },
    };
}
