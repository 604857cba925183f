// The one gate in front of unpaid work: every request that does not carry a payment that verifies is counted
// against its client's limit (RATE_LIMIT_PER_MIN), whichever way it comes: a 402, a free route, a sample, an MCP
// message (each element of a JSON-RPC batch), or a request whose payment is refused. Paid requests whose payment
// verifies are never counted.
import type { Context } from "hono";
import type { Config } from "../config.ts";
import { clientKey } from "../x402/seller/samples.ts";
import { clientAddress } from "./client-address.ts";
import { rateLimitedResponse } from "./rate-limited.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export class UnpaidGate {
  private readonly limiter: RateLimiter | undefined;
  private readonly config: Pick<Config, "trustProxy">;
  /**
   * Connections (the server's per-request env) whose unpaid work was counted already: the MCP endpoint counts
   * each message, and the tool calls it makes through the HTTP app are not counted a second time.
   */
  private readonly counted = new WeakSet<object>();

  constructor(limiter: RateLimiter | undefined, config: Pick<Config, "trustProxy">) {
    this.limiter = limiter?.enabled ? limiter : undefined;
    this.config = config;
  }

  get enabled(): boolean {
    return this.limiter !== undefined;
  }

  client(c: Context): string {
    return clientKey(clientAddress(c, this.config));
  }

  /**
   * Counts `units` unpaid requests of the request's client: undefined when it may go on, else the 429. A unit
   * refused is not counted; those taken before it stay counted.
   */
  async take(c: Context, units = 1, expensive = false): Promise<Response | undefined> {
    if (!this.limiter) return undefined;
    if (this.wasCounted(c)) return undefined;
    const client = this.client(c);
    for (let i = 0; i < units; i++) {
      const refused = await this.limiter.admit(client, expensive);
      if (refused) return rateLimitedResponse(refused);
    }
    return undefined;
  }

  /**
   * One request that carried a payment yet was unpaid work (a payment refused: not decodable, not matching,
   * not verified; or one sent to a free route or with a sample): counted even on a connection counted already,
   * as the MCP endpoint does not count tool calls that carry a payment.
   */
  async paymentUnused(c: Context, expensive = false): Promise<Response | undefined> {
    if (!this.limiter) return undefined;
    const refused = await this.limiter.admit(this.client(c), expensive);
    return refused ? rateLimitedResponse(refused) : undefined;
  }

  /** True when the client is over its limit now (nothing is counted). */
  over(c: Context, expensive = false): boolean {
    return this.limiter?.over(this.client(c), expensive) ?? false;
  }

  /** Marks the request's connection as counted (see `counted`). */
  markCounted(c: Context): void {
    if (typeof c.env === "object" && c.env !== null) this.counted.add(c.env);
  }

  private wasCounted(c: Context): boolean {
    return typeof c.env === "object" && c.env !== null && this.counted.has(c.env);
  }
}
