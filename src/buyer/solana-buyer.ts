// Paying on Solana: the buyer's key (solana-key.ts), the JSON-RPC its @x402/svm client reads the USDC mint (and,
// without the 402's blockhash hint, a blockhash) from, and the development buyer's pretend USDC.

import type { KeyPairSigner } from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { type Config, RPC_VARIABLES } from "../config.ts";
import { openServiceStore } from "../service.ts";
import { creditWallet } from "../x402/facilitator/facilitator.ts";
import type { NetworkInfo } from "../x402/shared/networks.ts";
import { solanaBuyerSigner } from "./solana-key.ts";

/** Where the local facilitator answers Solana JSON-RPC, under the paying server's origin (then the network's name). */
const LOCAL_SOLANA_RPC_PATH = "/local-facilitator/solana-rpc";

const DEV_CREDIT_USD = "10";
const LOW_BALANCE = 1_000_000n;

/**
 * The RPC a Solana buyer reads: SOLANA_RPC_URL (SOLANA_DEVNET_RPC_URL) when set; with the local facilitator the
 * paying server's pretend RPC; else undefined, the SDK's own public endpoint for the cluster.
 */
function solanaRpcUrl(
  config: Config,
  network: NetworkInfo,
  serverUrl: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const variable = RPC_VARIABLES[network.caip2];
  const configured = variable ? env[variable] : undefined;
  if (configured) return configured;
  if (config.facilitator.kind === "local")
    return new URL(`${LOCAL_SOLANA_RPC_PATH}/${network.name}`, serverUrl).toString();
  return undefined;
}

/** The development Solana buyer is credited on the local ledger when its balance runs low. */
async function creditDevelopmentBuyer(config: Config, network: NetworkInfo, address: string): Promise<void> {
  const store = await openServiceStore(config);
  try {
    if ((await store.localUsdc.balance(network.caip2, address)) >= LOW_BALANCE) return;
    const balance = await creditWallet(store, network, address, DEV_CREDIT_USD);
    process.stderr.write(
      `credited development buyer ${address} on ${network.name}: balance ${balance} USD (pretend USDC)\n`,
    );
  } finally {
    await store.close();
  }
}

interface SolanaPayer {
  signer: KeyPairSigner;
  scheme: ExactSvmScheme;
  rpcUrl: string | undefined;
}

/** The exact-SVM client scheme a buyer registers for `network` (BUYER_SOLANA_KEY, else the development key). */
export async function solanaPayer(
  config: Config,
  network: NetworkInfo,
  serverUrl: string,
  env: Record<string, string | undefined> = process.env,
): Promise<SolanaPayer> {
  const { signer, development } = await solanaBuyerSigner(config.dataDir, env);
  if (development && config.facilitator.kind === "local")
    await creditDevelopmentBuyer(config, network, signer.address);
  const rpcUrl = solanaRpcUrl(config, network, serverUrl, env);
  return { signer, rpcUrl, scheme: new ExactSvmScheme(signer, rpcUrl ? { rpcUrl } : undefined) };
}
