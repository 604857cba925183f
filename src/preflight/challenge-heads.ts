// At start: every paid route's 402 built as its first buyer would get it, and the routes whose response head
// cannot fit the 4 KB a default nginx holds (proxy_buffer_size) named in the log, so an operator behind one
// knows before buyers get 502s. Counts nothing: the 402s are built, never served.
import { describeProduct, sampleUrl } from "../catalog/describe.ts";
import { bazaarExtension } from "../catalog/documents.ts";
import { type AnyProduct, isFree } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import { errorText } from "../json.ts";
import type { Logger } from "../log.ts";
import { challengeHeadBytes, RESOURCE_URL_ALLOWANCE, RESPONSE_HEAD_LIMIT } from "../x402/seller/challenge.ts";
import type { Paywall } from "../x402/seller/paywall.ts";

interface OversizeChallenge {
  route: string;
  /** The response head with a resource URL of RESOURCE_URL_ALLOWANCE bytes. */
  bytes: number;
}

/** The paid routes whose 402 head, with a request URL of the allowed length, passes the 4 KB limit. */
async function oversizeChallenges(
  config: Config,
  paywall: Paywall,
  products: AnyProduct[],
): Promise<OversizeChallenge[]> {
  const over: OversizeChallenge[] = [];
  for (const product of products.filter((p) => !isFree(p))) {
    const url = `${config.publicUrl}${product.path}`;
    const freeSampleUrl = sampleUrl(config, product);
    // The same request as the route's first 402 makes: the template built here is the one it then serves.
    const parts = await paywall.challengeParts({
      product,
      ...(freeSampleUrl ? { freeSampleUrl } : {}),
      priceUsd: typeof product.price === "string" ? product.price : product.price.minUsd,
      resourceUrl: url,
      extensions: paywall.enrich(
        bazaarExtension(describeProduct(config, product)),
        product.method,
        product.path,
      ),
    });
    const longerUrl = Math.ceil((Math.max(0, RESOURCE_URL_ALLOWANCE - url.length) * 4) / 3);
    const bytes = challengeHeadBytes(parts.header) + longerUrl;
    if (bytes > RESPONSE_HEAD_LIMIT) over.push({ route: `${product.method} ${product.path}`, bytes });
  }
  return over;
}

/**
 * Logs one warning naming every paid route whose 402 a default nginx would refuse; never throws. Skipped where
 * warnings are not logged (it builds every paid route's 402: half a second of a test's start).
 */
export async function warnOversizeChallenges(
  config: Config,
  paywall: Paywall | undefined,
  products: AnyProduct[],
  log: Logger,
): Promise<void> {
  if (!paywall || !log.isLevelEnabled("warn")) return;
  try {
    const over = await oversizeChallenges(config, paywall, products);
    if (over.length === 0) return;
    log.warn(
      { routes: over.map((o) => `${o.route} (${o.bytes} B)`) },
      `${over.length} paid route(s) answer 402 with a response head over ${RESPONSE_HEAD_LIMIT} bytes: behind nginx with its default proxy_buffer_size they answer 502. Raise the proxy's buffer (nginx proxy_buffer_size 16k; proxy_buffers 8 16k) or offer fewer NETWORKS (see docs/payments.md)`,
    );
  } catch (error) {
    log.warn({ err: errorText(error) }, "could not check the 402 response heads");
  }
}
