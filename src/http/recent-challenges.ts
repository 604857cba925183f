// Unpaid GETs repeat: the 402 a URL got is answered again for a few seconds without re-validating it
// (validation and price depend only on the URL; data checks are themselves cached that long).
import type { ChallengeParts } from "../x402/seller/challenge.ts";

const RECENT_CHALLENGE_MS = 10_000;
/**
 * Few entries: each holds a 402 of about 6 KB, and with every URL new (crawlers, distinct queries) a larger map
 * only keeps more of them alive into the old generation (2,048 entries cost the 402 path 4 % of its CPU in GC).
 */
const RECENT_CHALLENGE_LIMIT = 256;

export class RecentChallenges {
  private readonly byUrl = new Map<string, { at: number; parts: ChallengeParts }>();

  /** The 402 this URL got less than a few seconds ago, and not before `notBefore` (ms since the epoch). */
  get(url: string, notBefore = 0): ChallengeParts | undefined {
    const recent = this.byUrl.get(url);
    return recent && Date.now() - recent.at < RECENT_CHALLENGE_MS && recent.at > notBefore
      ? recent.parts
      : undefined;
  }

  keep(url: string, parts: ChallengeParts): void {
    if (this.byUrl.size >= RECENT_CHALLENGE_LIMIT) this.byUrl.clear();
    this.byUrl.set(url, { at: Date.now(), parts });
  }
}
