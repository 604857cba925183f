// OpenAPI 3.1: one operation per route, with x-payment-info and x-free-sample for x402 discovery.
import type { Config } from "../config.ts";
import { catalogVersion, type PriceDescription, type ProductDescription } from "./describe.ts";
import { agentGuidance } from "./guidance.ts";

const errorSchema = {
  type: "object",
  required: ["error", "message", "charged"],
  properties: {
    error: { type: "string" },
    message: { type: "string" },
    charged: { type: "boolean", const: false },
    parameter: { type: "string", description: "The parameter at fault (400)." },
    retryAfterSec: { type: "integer", description: "When a queued item will be ready (404 not_cached)." },
  },
};

const paymentRequiredSchema = {
  type: "object",
  required: ["x402Version", "error", "accepts"],
  properties: {
    x402Version: { type: "integer", const: 2 },
    error: { type: "string" },
    message: { type: "string" },
    accepts: {
      type: "array",
      items: {
        type: "object",
        required: ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"],
        properties: {
          scheme: { type: "string" },
          network: { type: "string" },
          amount: { type: "string" },
          asset: { type: "string" },
          payTo: { type: "string" },
          maxTimeoutSeconds: { type: "integer" },
          extra: { type: "object" },
        },
      },
    },
    resource: { type: "object" },
    freeSample: { type: "string", format: "uri" },
  },
};

function json(ref: string, description: string) {
  return {
    description,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
  };
}

/**
 * The structured payment declaration agents' discovery reads: the price in USD (fixed, or a dynamic price's
 * bounds) and the protocols accepted, with x402's own details (version, scheme, networks, atomic amount).
 */
/**
 * The networks (CAIP-2) on which the 402 offers a scheme besides `exact`, as the facilitators' /supported says
 * once payments are ready (none before): `upto` for a product billed by use, `batch-settlement` for a price
 * fixed per call.
 */
export interface SchemeOffers {
  upto: string[];
  batch: string[];
}

export const NO_OFFERS: SchemeOffers = { upto: [], batch: [] };

/** The other schemes a product's 402 offers, as discovery documents state them beside `exact`. */
export function otherSchemes(price: PriceDescription, offers: SchemeOffers) {
  return {
    // Billed by use: `upto` (authorize the price as a maximum, be charged what the call used).
    ...(price.billedByUse && offers.upto.length > 0 ? { upto: { networks: offers.upto } } : {}),
    // Fixed per call: `batch-settlement` (deposit once into a channel, pay each call with a voucher).
    ...(!price.dynamic && offers.batch.length > 0 ? { "batch-settlement": { networks: offers.batch } } : {}),
  };
}

function paymentInfo(config: Config, price: PriceDescription, offers: SchemeOffers) {
  return {
    price: price.dynamic
      ? {
          mode: "dynamic",
          currency: "USD",
          min: price.priceUsd,
          ...(price.maxUsd ? { max: price.maxUsd } : {}),
        }
      : { mode: "fixed", currency: "USD", amount: price.priceUsd },
    protocols: [
      {
        x402: {
          x402Version: 2,
          scheme: "exact",
          asset: "USDC",
          networks: config.networks.map((n) => n.caip2),
          ...(price.dynamic ? {} : { amount: price.amount }),
          // The other schemes the 402 offers on some networks. One protocol object per protocol, as the
          // discovery profile reads them.
          ...otherSchemes(price, offers),
        },
      },
    ],
    ...(price.formula ? { formula: price.formula } : {}),
  };
}

function operation(config: Config, d: ProductDescription, offers: SchemeOffers) {
  const op: Record<string, unknown> = {
    operationId: d.sku.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
      c ? c.toUpperCase() : "",
    ),
    summary: d.summary,
    description: d.description,
    // No API key or sign-in on any route: payment (x-payment-info) is the only credential.
    security: [],
    tags: d.tags.length ? d.tags : [d.sku.split(".")[0]],
    parameters: d.parameters.map((p) => ({
      name: p.name,
      in: "query",
      required: p.required,
      ...(p.description ? { description: p.description } : {}),
      ...(p.aliasOf ? { deprecated: false } : {}),
      schema: p.schema,
    })),
    responses: {
      "200": { description: "The answer.", content: { "application/json": { schema: d.answerSchema } } },
      "400": json("Error", "Malformed request; rejected before payment is requested, never charged."),
      "404": json("Error", "Item not cached (queued: see retryAfterSec) or not found; never charged."),
    },
  };
  if (d.bodySchema) {
    op.requestBody = { required: true, content: { "application/json": { schema: d.bodySchema } } };
  }
  if (d.mode === "paid") {
    (op.responses as Record<string, unknown>)["402"] = {
      ...json(
        "PaymentRequired",
        "Payment required: the PAYMENT-REQUIRED header carries the base64 x402 v2 requirements.",
      ),
      headers: {
        "PAYMENT-REQUIRED": {
          schema: { type: "string" },
          description: "Base64 JSON PaymentRequired (x402 v2).",
        },
      },
    };
    op["x-payment-info"] = paymentInfo(config, d.price, offers);
    if (d.freeSampleUrl) op["x-free-sample"] = d.freeSampleUrl;
  }
  return op;
}

/** A route's section: the first segment of its path after the version (`/v1/gov/...` → `gov`). */
export function sectionOf(path: string): string {
  return path.split("/")[2] ?? "";
}

/**
 * Every section's own OpenAPI document, for agents that load one part of the catalog at a time. Sections with
 * paid routes only: a free-only one (the receipt check, the trip map) is in /openapi.json.
 */
function sectionUrls(config: Config, descriptions: ProductDescription[]): Record<string, string> {
  const names = [
    ...new Set(descriptions.filter((d) => d.mode === "paid").map((d) => sectionOf(d.path))),
  ].sort();
  return Object.fromEntries(names.map((name) => [name, `${config.publicUrl}/openapi/${name}.json`]));
}

/** `offers`: where the 402 offers `upto` and `batch-settlement` besides `exact` (SchemeOffers). */
export function buildOpenApi(
  config: Config,
  descriptions: ProductDescription[],
  section?: string,
  offers: SchemeOffers = NO_OFFERS,
) {
  const all = descriptions;
  if (section !== undefined) descriptions = descriptions.filter((d) => sectionOf(d.path) === section);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const d of descriptions) {
    paths[d.path] ??= {};
    (paths[d.path] as Record<string, unknown>)[d.method.toLowerCase()] = operation(config, d, offers);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "paycall",
      version: "1.0.0",
      description:
        "Pay-per-call JSON data API paid in USDC through x402 v2. Call a paid URL, receive 402 with PAYMENT-REQUIRED, repeat it with PAYMENT-SIGNATURE. Charged only for 2xx answers.",
      contact: { name: config.operatorName, email: config.contact },
      "x-guidance": agentGuidance(config),
    },
    "x-agentcash-guidance": { llmsTxtUrl: `${config.publicUrl}/llms.txt` },
    ...(config.ownershipProofs.length
      ? { "x-agentcash-provenance": { ownershipProofs: config.ownershipProofs } }
      : {}),
    servers: [{ url: config.publicUrl }],
    "x-catalog-version": catalogVersion(all),
    // The whole catalog is over 100 routes; each section's document stays small enough for an agent's context.
    "x-openapi-sections": sectionUrls(config, all),
    paths,
    components: { schemas: { Error: errorSchema, PaymentRequired: paymentRequiredSchema } },
  };
}
