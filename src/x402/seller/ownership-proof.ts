// x402scan's ownership proof: the service's origin (scheme://host[:port], no trailing slash) signed with the
// pay-to key as an EIP-191 personal message. Indexers recover the signer and match it against the 402's payTo.
import { privateKeyToAccount } from "viem/accounts";

export function originOf(publicUrl: string): string {
  return new URL(publicUrl).origin;
}

export async function ownershipProof(publicUrl: string, privateKey: `0x${string}`): Promise<string> {
  return privateKeyToAccount(privateKey).signMessage({ message: originOf(publicUrl) });
}
