// The x402 resource server: @x402/core with the exact schemes of the configured networks, the upto scheme of
// the EVM ones (offered only where a facilitator's /supported lists it: src/x402/seller/upto-offer.ts), and
// Bazaar, over the facilitator set of FACILITATOR_URL (src/x402/seller/facilitators/).

import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import type { Config } from "../../config.ts";
import type { PooledFacilitatorClient } from "./facilitator-client.ts";
import { createEntryClient } from "./facilitators/create.ts";
import { FollowingResourceServer } from "./facilitators/following-server.ts";
import type { FacilitatorSet } from "./facilitators/set.ts";

/** The client of the first facilitator of the list (preflight and tests of one facilitator). */
export function createFacilitatorClient(config: Config, localUrl?: string): PooledFacilitatorClient {
  return createEntryClient(config.facilitator, config.facilitatorTimeoutMs, localUrl);
}

export async function createResourceServer(
  config: Config,
  facilitators: FacilitatorSet,
): Promise<FollowingResourceServer> {
  const server = new FollowingResourceServer(facilitators);
  for (const network of config.networks) {
    // The SVM scheme brings Solana Kit and the token programs: imported only when a Solana network is served.
    const scheme =
      network.kind === "evm"
        ? new ExactEvmScheme()
        : new (await import("@x402/svm/exact/server")).ExactSvmScheme();
    server.register(network.caip2, scheme);
    if (network.kind === "evm") server.register(network.caip2, new UptoEvmScheme());
  }
  server.registerExtension(bazaarResourceServerExtension);
  await server.initialize();
  return server;
}
