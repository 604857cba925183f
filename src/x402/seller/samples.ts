// Free samples: a few per hour per sample per client address (IPv6 counted by its /64).
import { isIPv6 } from "node:net";
import type { Store } from "../../store/store.ts";

const HOUR_MS = 3600_000;

export function clientKey(address: string | undefined): string {
  if (!address) return "unknown";
  if (!address.includes(":")) return address; // IPv4: the common case, without the IPv6 checks
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail ? tail.split(":") : [];
  const missing = 8 - headParts.length - tailParts.length;
  const full = [...headParts, ...Array(Math.max(0, missing)).fill("0"), ...tailParts];
  return `${full
    .slice(0, 4)
    .map((p) => p.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

export class SampleLimiter {
  private readonly store: Store;
  private readonly perHour: number;
  constructor(store: Store, perHour: number) {
    this.store = store;
    this.perHour = perHour;
  }

  /** Counts one free sample; `allowed: false` carries the seconds until the next window. */
  async take(
    sku: string,
    client: string,
    now = new Date(),
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSec: number }> {
    const windowStart = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
    const windowEnd = windowStart + HOUR_MS;
    const retryAfterSec = Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000));
    if (this.perHour === 0) return { allowed: false, retryAfterSec };
    const count = await this.store.samples.increment(`${sku}|${client}|${windowStart}`, new Date(windowEnd));
    return count <= this.perHour ? { allowed: true } : { allowed: false, retryAfterSec };
  }
}
