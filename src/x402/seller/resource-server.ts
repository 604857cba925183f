// The x402 resource server: @x402/core with the exact schemes of the configured networks, the upto scheme of
// the EVM ones (offered only where a facilitator's /supported lists it: src/x402/seller/upto-offer.ts), and
// Bazaar, over the facilitator set of FACILITATOR_URL (src/x402/seller/facilitators/).

import type { PaymentRequirements, SchemeNetworkServer } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { type Config, usesRemoteFacilitator } from "../../config.ts";
import type { PooledFacilitatorClient } from "./facilitator-client.ts";
import { createEntryClient } from "./facilitators/create.ts";
import { FollowingResourceServer } from "./facilitators/following-server.ts";
import type { FacilitatorSet } from "./facilitators/set.ts";

/** The client of the first facilitator of the list (preflight and tests of one facilitator). */
export function createFacilitatorClient(config: Config, localUrl?: string): PooledFacilitatorClient {
  return createEntryClient(config.facilitator, config.facilitatorTimeoutMs, localUrl);
}

/**
 * With the local facilitator alone, Solana offers carry the pretend chain's latest blockhash as the exact-SVM
 * hint (`extra.recentBlockhash`, `extra.lastValidBlockHeight`), so a buyer needs no RPC for it. The hint is a
 * blockhash that dies in about 60 s: offers holding one are rebuilt every SOLANA_HINT_REFRESH_MS.
 */
export function solanaHintRefreshMs(config: Config): number | undefined {
  const hinted = !usesRemoteFacilitator(config) && config.networks.some((n) => n.kind === "svm");
  return hinted ? SOLANA_HINT_REFRESH_MS : undefined;
}
const SOLANA_HINT_REFRESH_MS = 15_000;

async function exactSvmScheme(config: Config): Promise<SchemeNetworkServer> {
  // The SVM scheme brings Solana Kit and the token programs: imported only when a Solana network is served.
  const { ExactSvmScheme } = await import("@x402/svm/exact/server");
  if (solanaHintRefreshMs(config) === undefined) return new ExactSvmScheme();
  const { latestBlockhash } = await import("../facilitator/solana-blocks.ts");
  return new (class extends ExactSvmScheme {
    override async enhancePaymentRequirements(
      requirements: PaymentRequirements,
      kind: Parameters<SchemeNetworkServer["enhancePaymentRequirements"]>[1],
      extensionKeys: string[],
    ): Promise<PaymentRequirements> {
      const enhanced = await super.enhancePaymentRequirements(requirements, kind, extensionKeys);
      const { blockhash, lastValidBlockHeight } = latestBlockhash(enhanced.network, Date.now());
      const hint = { recentBlockhash: blockhash, lastValidBlockHeight: String(lastValidBlockHeight) };
      return { ...enhanced, extra: { ...enhanced.extra, ...hint } };
    }
  })();
}

export async function createResourceServer(
  config: Config,
  facilitators: FacilitatorSet,
): Promise<FollowingResourceServer> {
  const server = new FollowingResourceServer(facilitators);
  for (const network of config.networks) {
    const scheme = network.kind === "evm" ? new ExactEvmScheme() : await exactSvmScheme(config);
    server.register(network.caip2, scheme);
    if (network.kind === "evm") server.register(network.caip2, new UptoEvmScheme());
  }
  server.registerExtension(bazaarResourceServerExtension);
  await server.initialize();
  return server;
}
