// The client a request is counted against: its address (the first X-Forwarded-For hop behind a trusted proxy).
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import type { Config } from "../config.ts";

export function clientAddress(c: Context, config: Pick<Config, "trustProxy">): string | undefined {
  if (config.trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
