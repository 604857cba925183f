// The x402 resource server: @x402/core with the exact schemes of the configured networks, the upto scheme of
// the EVM ones (offered only where the facilitator's /supported lists it: src/x402/seller/upto-offer.ts), and Bazaar.

import { type FacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import type { Config } from "../../config.ts";
import { CdpFacilitatorClient } from "./cdp-auth.ts";
import { PooledFacilitatorClient } from "./facilitator-client.ts";

export function createFacilitatorClient(config: Config, localUrl?: string): FacilitatorClient {
  if (config.facilitator.kind === "local") {
    if (!localUrl) throw new Error("the local facilitator URL is known only once the server listens");
    return new PooledFacilitatorClient({ url: localUrl, timeoutMs: config.facilitatorTimeoutMs });
  }
  const headers = config.facilitator.headers;
  const cdp = config.facilitator.cdp;
  if (cdp) {
    return new CdpFacilitatorClient({
      url: config.facilitator.url,
      timeoutMs: config.facilitatorTimeoutMs,
      credentials: cdp,
      headers,
    });
  }
  const hasHeaders = Object.keys(headers).length > 0;
  return new PooledFacilitatorClient({
    url: config.facilitator.url,
    timeoutMs: config.facilitatorTimeoutMs,
    createAuthHeaders: hasHeaders
      ? async () => ({ verify: headers, settle: headers, supported: headers, bazaar: headers })
      : undefined,
  });
}

export async function createResourceServer(
  config: Config,
  facilitator: FacilitatorClient,
): Promise<x402ResourceServer> {
  const server = new x402ResourceServer(facilitator);
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
