// The payment networks paycall can take USDC on, by the short names operators write in NETWORKS.
export type NetworkName = "base" | "base-sepolia" | "solana" | "solana-devnet";
type Caip2 = `${string}:${string}`;

export interface NetworkInfo {
  name: NetworkName;
  caip2: Caip2;
  kind: "evm" | "svm";
  chainId?: number;
  usdc: { address: string; eip712?: { name: string; version: string } };
  testnet: boolean;
}

export const NETWORKS: Record<NetworkName, NetworkInfo> = {
  base: {
    name: "base",
    caip2: "eip155:8453",
    kind: "evm",
    chainId: 8453,
    usdc: {
      address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      eip712: { name: "USD Coin", version: "2" },
    },
    testnet: false,
  },
  "base-sepolia": {
    name: "base-sepolia",
    caip2: "eip155:84532",
    kind: "evm",
    chainId: 84532,
    usdc: { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", eip712: { name: "USDC", version: "2" } },
    testnet: true,
  },
  solana: {
    name: "solana",
    caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    kind: "svm",
    usdc: { address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
    testnet: false,
  },
  "solana-devnet": {
    name: "solana-devnet",
    caip2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    kind: "svm",
    usdc: { address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" },
    testnet: true,
  },
};

export const NETWORK_NAMES = Object.keys(NETWORKS) as NetworkName[];

export function networkByCaip2(caip2: string): NetworkInfo | undefined {
  return Object.values(NETWORKS).find((n) => n.caip2 === caip2);
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function isEvmAddress(value: string): boolean {
  return EVM_ADDRESS.test(value);
}

export function isSolanaAddress(value: string): boolean {
  return SOLANA_ADDRESS.test(value);
}
