// The SDK's resource server with its supported kinds taken from the facilitator set at each use, instead of the
// maps its initialize() fills once: the 402 builds its requirements from getSupportedKind and
// getFacilitatorExtensions, so it offers a (scheme, network) only while some healthy facilitator supports it.
import { x402ResourceServer } from "@x402/core/server";
import type { SupportedKind } from "@x402/core/types";
import type { FacilitatorSet } from "./set.ts";

export class FollowingResourceServer extends x402ResourceServer {
  readonly facilitators: FacilitatorSet;

  constructor(facilitators: FacilitatorSet) {
    super(facilitators);
    this.facilitators = facilitators;
  }

  override getSupportedKind(x402Version: number, network: string, scheme: string): SupportedKind | undefined {
    return this.facilitators.supportedKind(x402Version, network, scheme);
  }

  override getFacilitatorExtensions(x402Version: number, network: string, scheme: string): string[] {
    return this.facilitators.extensions(x402Version, network, scheme);
  }
}
