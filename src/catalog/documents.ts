// The machine-readable documents buyers discover paycall by, all built from the same descriptions.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { Config } from "../config.ts";
import { catalogVersion, type JsonSchema, type ProductDescription } from "./describe.ts";
import { NO_OFFERS, otherSchemes, type SchemeOffers } from "./openapi.ts";
import { exampleFromSchema, typedExampleValue } from "./schema-example.ts";
import { outlineSchema } from "./schema-outline.ts";

const SERVICE_DESCRIPTION =
  "Pay-per-call JSON data API: machine-readable data and diagnostics, each call paid in USDC through x402 v2. No accounts, no API keys: payment is the credential.";

function networksOf(config: Config) {
  return config.networks.map((n) => n.caip2);
}

export function buildCatalog(
  config: Config,
  descriptions: ProductDescription[],
  offers: SchemeOffers = NO_OFFERS,
) {
  return {
    service: "paycall",
    description: SERVICE_DESCRIPTION,
    version: catalogVersion(descriptions),
    x402Version: 2,
    baseUrl: config.publicUrl,
    networks: config.networks.map((n) => ({
      name: n.name,
      caip2: n.caip2,
      asset: n.usdc.address,
      testnet: n.testnet,
    })),
    discovery: {
      openapi: `${config.publicUrl}/openapi.json`,
      wellKnown: `${config.publicUrl}/.well-known/x402`,
      terms: `${config.publicUrl}/terms.json`,
    },
    count: descriptions.length,
    products: descriptions.map((d) => ({
      sku: d.sku,
      method: d.method,
      path: d.path,
      url: d.resourceUrl,
      description: d.description,
      summary: d.summary,
      parameters: d.parameters.map(({ schema: _schema, ...rest }) => rest),
      ...(d.bodySchema ? { body: d.bodySchema } : {}),
      priceUsd: d.price.priceUsd,
      amount: d.price.amount,
      ...(d.price.dynamic
        ? {
            pricing: {
              dynamic: true,
              minimumUsd: d.price.priceUsd,
              maximumUsd: d.price.maxUsd,
              formula: d.price.formula,
            },
          }
        : {}),
      networks: d.mode === "paid" ? networksOf(config) : [],
      ...(d.mode === "paid" ? otherSchemes(d.price, offers) : {}),
      status: d.status,
      mode: d.mode,
      tags: d.tags,
      freeSampleUrl: d.freeSampleUrl ?? null,
      ...(d.exampleQuery ? { example: d.exampleQuery } : {}),
      ...(d.product.exampleBody !== undefined ? { exampleBody: d.product.exampleBody } : {}),
    })),
  };
}

/** The x402scan discovery shape (`version`, `resources`), plus per-resource price, networks and sample. */
export function buildWellKnown(
  config: Config,
  descriptions: ProductDescription[],
  /** Where a product also takes `upto` or `batch-settlement` (buildOpenApi says the same). */
  offers: SchemeOffers = NO_OFFERS,
) {
  const paid = descriptions.filter((d) => d.mode === "paid");
  return {
    version: 1,
    x402Version: 2,
    resources: paid.map((d) => d.resourceUrl),
    items: paid.map((d) => ({
      resource: d.resourceUrl,
      method: d.method,
      sku: d.sku,
      description: d.summary,
      priceUsd: d.price.priceUsd,
      amount: d.price.amount,
      dynamicPrice: d.price.dynamic,
      scheme: "exact",
      ...otherSchemes(d.price, offers),
      networks: networksOf(config),
      freeSample: d.freeSampleUrl ?? null,
    })),
    ...(config.ownershipProofs.length ? { ownershipProofs: config.ownershipProofs } : {}),
    instructions: `Catalog: ${config.publicUrl}/catalog.json. OpenAPI: ${config.publicUrl}/openapi.json. Each paid URL answers 402 with PAYMENT-REQUIRED (x402 v2); repeat the request with PAYMENT-SIGNATURE. You are charged only for 2xx answers.`,
  };
}

const VERBOSE_KEYWORDS = new Set(["description", "pattern", "examples", "title", "$schema"]);

/**
 * A schema without its prose and regular expressions: what a Bazaar declaration carries (the 402's header has
 * a cut-down form of it, see bazaar-header.ts; the prose is in /openapi.json).
 */
export function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !VERBOSE_KEYWORDS.has(key))
      .map(([key, value]) => [
        key,
        key === "properties" ? mapValues(value, compactSchema) : compactSchema(value),
      ]),
  );
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
}

/**
 * The Bazaar discovery extension every paid route declares, with its input schema and example and its answer's
 * schema and a placeholder example: whole in the 402's body, cut down to fit in its PAYMENT-REQUIRED header
 * (`bazaarWithin`).
 */
export function bazaarExtension(d: ProductDescription): Record<string, unknown> {
  // Eight levels: the placeholder example stops deeper (schema-example.ts), and must satisfy the schema.
  const answer = outlineSchema(compactSchema(d.answerSchema) as JsonSchema, 7);
  // The SDK declares an output only with an example; a placeholder built from the schema shows the shape.
  const outputOf = (schema: JsonSchema) => ({ example: exampleFromSchema(schema), schema });
  if (d.method === "POST") {
    const inputSchema = (compactSchema(d.bodySchema) as typeof d.bodySchema) ?? { type: "object" };
    return declareDiscoveryExtension({
      bodyType: "json",
      input: (d.product.exampleBody ?? {}) as Record<string, unknown>,
      inputSchema,
      output: outputOf(answer),
    });
  }
  const properties = Object.fromEntries(
    d.parameters.filter((p) => !p.aliasOf).map((p) => [p.name, p.schema]),
  );
  const required = d.parameters.filter((p) => p.required && !p.aliasOf).map((p) => p.name);
  const example = d.product.sample ?? d.product.example ?? {};
  const input = Object.fromEntries(
    Object.entries(example).map(([name, value]) => [
      name,
      typedExampleValue(value, properties[name] as JsonSchema | undefined),
    ]),
  );
  const inputSchema = {
    type: "object",
    properties: mapValues(properties, compactSchema) as typeof properties,
    ...(required.length ? { required } : {}),
  };
  return declareDiscoveryExtension({ input, inputSchema, output: outputOf(answer) });
}

export function buildTerms(config: Config, descriptions: ProductDescription[]) {
  const sources = new Map<
    string,
    { name: string; url: string; licence: unknown; notice?: string; products: string[] }
  >();
  for (const d of descriptions) {
    const source = d.product.source;
    if (!source) continue;
    const entry = sources.get(source.url) ?? {
      name: source.name,
      url: source.url,
      licence: source.licence,
      notice: source.notice,
      products: [],
    };
    entry.products.push(d.sku);
    sources.set(source.url, entry);
  }
  return {
    service: "paycall",
    operator: config.operatorName,
    contact: config.contact,
    payment: {
      protocol: "x402 version 2",
      scheme: "exact",
      currency: "USDC",
      networks: networksOf(config),
      charging:
        "You are charged only when the answer is 2xx. 400, 402, 404 and 5xx answers are never charged.",
      refunds: "Payments settle on-chain with the exact scheme and cannot be refunded by the API.",
    },
    sources: [...sources.values()],
    disclaimers: [
      "Data is served from a continuously refreshed cache of public upstream sources; every answer carries the time it was fetched.",
      "Answers are provided as-is, without warranty of accuracy, completeness or fitness for a purpose; they are not legal, financial or investment advice.",
      "Each upstream's licence and attribution, listed under sources, applies to its data.",
      ...(config.upstreams === "replay"
        ? [
            "This instance answers from recorded samples of upstream responses (UPSTREAMS=replay), not live data.",
          ]
        : []),
    ],
  };
}
