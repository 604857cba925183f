// The 402 of an unpaid request: the SDK's PAYMENT-REQUIRED header and our JSON body, built once per product, price
// and error, and filled in with each request's URL.
import type { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import { type BazaarDeclaration, bazaarWithin } from "../../catalog/bazaar-header.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { JSON_HEADERS } from "../../responses.ts";
import { UPTO } from "../shared/upto-payload.ts";
import { type Pricing, pricingOf } from "./pricing.ts";
import { OFFER_VALIDITY_SECONDS, type ReceiptIssuer, routeUrlOf } from "./receipts/issuer.ts";
import { PAYMENT_IDENTIFIER_DECLARATION, PAYMENT_IDENTIFIER_IN_HEADER } from "./retries/paid-answers.ts";
import { serviceMetadata } from "./service-metadata.ts";

/** What a 402 names: the product, its price for this request, the request's URL and the route's extensions. */
export interface ChallengeRequest {
  product: AnyProduct;
  priceUsd: string;
  resourceUrl: string;
  freeSampleUrl?: string;
  extensions: Record<string, unknown>;
}

/** The encoded `PAYMENT-REQUIRED` header and JSON body of one 402. */
export interface ChallengeParts {
  header: string;
  body: string;
}

export function challengeResponse(parts: ChallengeParts): Response {
  return new Response(parts.body, {
    status: 402,
    headers: { ...JSON_HEADERS, "payment-required": parts.header, "cache-control": "no-store" },
  });
}

/** Stands in for the resource URL while a product's 402 is built once; never a real request's URL. */
const URL_MARK = "https://paycall.invalid/resource-url-mark";

/** A JSON text cut where the resource URL goes: [before, after]. */
type SplitJson = [string, string];

/**
 * The PAYMENT-REQUIRED header's JSON cut around the resource URL, with both sides base64-encoded ahead: base64
 * codes 3 bytes at a time, so `before` is encoded up to its last whole group (`headB64`, the 0–2 bytes left go
 * with the URL), and `after` from 0, 1 or 2 bytes in (`tailB64[k]`, the k bytes that complete the URL's last
 * group go with it). A 402 then encodes only the URL's few dozen bytes instead of 5 KB of JSON.
 */
interface SplitBase64 {
  headB64: string;
  headRest: Buffer;
  after: Buffer;
  tailB64: [string, string, string];
}

interface ChallengeTemplate {
  header: SplitBase64;
  body: SplitJson;
}

/**
 * What a reverse proxy with default buffers holds of a response head (status line and every header): nginx
 * reads it into proxy_buffer_size, one memory page, 4 KB on x86-64, and answers 502 past it.
 */
export const RESPONSE_HEAD_LIMIT = 4096;
/**
 * The head's lines other than PAYMENT-REQUIRED: status line, content type, CORS, security headers,
 * cache-control, request id, Retry-After on some 402s, Date, Connection/Keep-Alive, Content-Length (about 420
 * bytes measured on the wire), with room to spare.
 */
export const OTHER_HEAD_BYTES = 512;
/** The resource URL the header names is the request's own: room is kept for one of this many bytes. */
export const RESOURCE_URL_ALLOWANCE = 256;
const HEADER_LINE_BYTES = "payment-required: \r\n".length;
/** The PAYMENT-REQUIRED JSON's bytes, the resource URL left out, that keep the head within the limit. */
const HEADER_JSON_BUDGET =
  Math.floor(((RESPONSE_HEAD_LIMIT - OTHER_HEAD_BYTES - HEADER_LINE_BYTES) * 3) / 4) - RESOURCE_URL_ALLOWANCE;

/** The response head a 402 with this PAYMENT-REQUIRED value comes to, its other lines at their allowance. */
export function challengeHeadBytes(header: string): number {
  return HEADER_LINE_BYTES + header.length + OTHER_HEAD_BYTES;
}

/** A template is rebuilt (its offers signed again) after this long, well before its offers expire. */
const TEMPLATE_REFRESH_MS = (OFFER_VALIDITY_SECONDS * 1000) / 2;

function splitAtMark(json: string): SplitJson {
  const at = json.indexOf(URL_MARK);
  if (at < 0 || json.indexOf(URL_MARK, at + 1) >= 0) {
    throw new Error("the 402 template must name the resource URL exactly once");
  }
  return [json.slice(0, at), json.slice(at + URL_MARK.length)];
}

function splitBase64([before, after]: SplitJson): SplitBase64 {
  const head = Buffer.from(before, "utf8");
  const whole = head.length - (head.length % 3);
  const tail = Buffer.from(after, "utf8");
  return {
    headB64: head.subarray(0, whole).toString("base64"),
    headRest: Buffer.from(head.subarray(whole)),
    after: tail,
    tailB64: [0, 1, 2].map((k) => tail.subarray(k).toString("base64")) as [string, string, string],
  };
}

/** base64 of before + the escaped URL + after, from the parts encoded ahead. */
function encodeAround(split: SplitBase64, escapedUrl: string): string {
  const url = Buffer.from(escapedUrl, "utf8");
  const middle = split.headRest.length + url.length;
  const borrow = Math.min((3 - (middle % 3)) % 3, split.after.length);
  const group = Buffer.concat([split.headRest, url, split.after.subarray(0, borrow)], middle + borrow);
  return split.headB64 + group.toString("base64") + split.tailB64[borrow];
}

/** The 402 for one URL: the URL spliced in as a JSON string's content, the header base64 of the UTF-8. */
function fillChallenge(template: ChallengeTemplate, url: string): ChallengeParts {
  const escaped = JSON.stringify(url).slice(1, -1);
  const [bodyBefore, bodyAfter] = template.body;
  return {
    header: encodeAround(template.header, escaped),
    body: bodyBefore + escaped + bodyAfter,
  };
}

/** What building a 402 takes from the paywall. */
interface ChallengeSources {
  server: x402ResourceServer;
  config: Config;
  receipts: ReceiptIssuer;
  requirements: (priceUsd: string, pricing: Pricing) => Promise<PaymentRequirements[]>;
}

/**
 * The PAYMENT-REQUIRED of a whole payment request: the same fields, its extensions but the signed offers, the
 * Bazaar declaration as much of it as the header's budget leaves room for.
 */
function headerRequest(
  whole: PaymentRequired,
  bazaar: BazaarDeclaration | undefined,
  otherExtensions: Record<string, unknown>,
): PaymentRequired {
  const extensions = { ...otherExtensions, ...PAYMENT_IDENTIFIER_IN_HEADER };
  if (!bazaar) return { ...whole, extensions };
  const declared = (whole.extensions?.bazaar ?? bazaar) as BazaarDeclaration;
  const withoutBazaar = { ...whole, extensions: { bazaar: null, ...extensions } };
  const rest = Buffer.byteLength(JSON.stringify(withoutBazaar)) - "null".length - URL_MARK.length;
  return {
    ...whole,
    extensions: { bazaar: bazaarWithin(declared, HEADER_JSON_BUDGET - rest), ...extensions },
  };
}

/** Each product's 402 templates, by price and error, rebuilt before their signed offers expire. */
export class ChallengeTemplates {
  private readonly sources: ChallengeSources;
  private readonly templates = new Map<string, { refreshAt: number; template: Promise<ChallengeTemplate> }>();

  constructor(sources: ChallengeSources) {
    this.sources = sources;
  }

  async parts(
    request: ChallengeRequest,
    error: string,
    message: string | undefined,
  ): Promise<ChallengeParts> {
    const key = `${request.product.sku}|${request.priceUsd}|${error}|${message ?? ""}|${request.freeSampleUrl ?? ""}`;
    const now = Date.now();
    let entry = this.templates.get(key);
    if (!entry || entry.refreshAt <= now) {
      const fresh = {
        refreshAt: now + TEMPLATE_REFRESH_MS,
        template: this.build(request, error, message),
      };
      fresh.template.catch(() => {
        if (this.templates.get(key) === fresh) this.templates.delete(key);
      });
      this.templates.set(key, fresh);
      entry = fresh;
    }
    return fillChallenge(await entry.template, request.resourceUrl);
  }

  /**
   * A 402 built for one refused payment, never kept: the schemes may add what that payment needs to be made
   * again (batch-settlement's corrective 402 carries the channel's state as the seller holds it).
   */
  async forPayment(
    request: ChallengeRequest,
    error: string,
    message: string | undefined,
    payload: PaymentPayload,
  ): Promise<ChallengeParts> {
    return fillChallenge(await this.build(request, error, message, payload), request.resourceUrl);
  }

  /**
   * The 402 of one product, price and error for any URL: the SDK's PAYMENT-REQUIRED JSON and our body, built
   * once with a marker in place of the resource URL and split around it (the URL is the only part that
   * differs between two requests of one product). Its signed offers name the product's route URL, not the
   * request's, so they too are signed once per product, price and key (and again before they expire).
   *
   * The body carries the whole payment request: accepts, resource and every extension (the whole Bazaar
   * declaration, the signed offers, the payment identifier). The header carries what a buyer pays with and an
   * indexer lists by, within a 4 KB response head: accepts, resource, the payment identifier and the Bazaar
   * declaration cut down to fit; the signed offers (optional per accept) stay in the body.
   */
  private async build(
    request: ChallengeRequest,
    error: string,
    message: string | undefined,
    payload?: PaymentPayload,
  ): Promise<ChallengeTemplate> {
    const { server, config, receipts } = this.sources;
    const accepts = await this.sources.requirements(request.priceUsd, pricingOf(request.product));
    const routeUrl = routeUrlOf(config.publicUrl, request.product.path);
    const offers = await receipts.offerExtension(accepts, routeUrl);
    const { bazaar, ...otherExtensions } = request.extensions;
    const paymentRequired = await server.createPaymentRequiredResponse(
      accepts,
      {
        url: URL_MARK,
        description: request.product.summary,
        mimeType: "application/json",
        ...serviceMetadata(config, request.product),
      },
      error,
      { ...request.extensions, ...PAYMENT_IDENTIFIER_DECLARATION, [OFFER_RECEIPT]: offers },
      undefined,
      payload,
    );
    const header = headerRequest(paymentRequired, bazaar as BazaarDeclaration | undefined, otherExtensions);
    const body: Record<string, unknown> = {
      x402Version: 2,
      error,
      message:
        message ??
        `This request costs ${request.priceUsd} USD in USDC. Pay with x402 and repeat it with a PAYMENT-SIGNATURE header.${
          accepts.some((a) => a.scheme === UPTO)
            ? " Paid with the upto scheme, that is the most it costs: you are charged what the call used."
            : ""
        }`,
      accepts: paymentRequired.accepts,
      resource: paymentRequired.resource,
      extensions: paymentRequired.extensions,
    };
    if (request.freeSampleUrl) body.freeSample = request.freeSampleUrl;
    return {
      header: splitBase64(splitAtMark(JSON.stringify(header))),
      body: splitAtMark(JSON.stringify(body)),
    };
  }
}
