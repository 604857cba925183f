// Coinbase CDP facilitator authentication: every supported, verify and settle call carries a JWT made for
// that call (bound to its method, host and path, valid two minutes), signed with the operator's CDP API key.
// The JWT itself is made by @coinbase/x402's createAuthHeader (which calls @coinbase/cdp-sdk's generateJwt:
// EdDSA for a base64 Ed25519 key of 64 bytes, seed then public key; ES256 for a PKCS#8 PEM EC key).
import { type CdpCredentials, loadCoinbaseSdk } from "../shared/cdp-credentials.ts";
import { PooledFacilitatorClient } from "./facilitator-client.ts";

const OPERATIONS: Record<string, { method: string; path: string }> = {
  verify: { method: "POST", path: "verify" },
  settle: { method: "POST", path: "settle" },
  supported: { method: "GET", path: "supported" },
};

/**
 * The pooled facilitator client with one fresh JWT per call, made for the operation being called (the
 * SDK's own helper signs all three paths on every call, and for Coinbase's host only).
 */
export class CdpFacilitatorClient extends PooledFacilitatorClient {
  readonly #credentials: CdpCredentials;
  readonly #base: URL;
  readonly #fixedHeaders: Record<string, string>;

  constructor(options: {
    url: string;
    timeoutMs: number;
    credentials: CdpCredentials;
    headers?: Record<string, string>;
  }) {
    // The SDK asks for auth headers only when it was given a factory; ours is the override below.
    super({ url: options.url, timeoutMs: options.timeoutMs, createAuthHeaders: async () => ({}) });
    this.#credentials = options.credentials;
    this.#base = new URL(options.url.replace(/\/+$/, ""));
    this.#fixedHeaders = options.headers ?? {};
  }

  override async createAuthHeaders(path: string): Promise<{ headers: Record<string, string> }> {
    const operation = OPERATIONS[path];
    if (!operation) return { headers: { ...this.#fixedHeaders } };
    const target = new URL(this.#base.href);
    target.pathname = `${this.#base.pathname.replace(/\/+$/, "")}/${operation.path}`;
    const { createCorrelationHeader } = await loadCoinbaseSdk();
    return {
      headers: {
        ...this.#fixedHeaders,
        Authorization: await this.#credentials.authorization(operation.method, target),
        "Correlation-Context": createCorrelationHeader(),
      },
    };
  }
}
