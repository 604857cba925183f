// OpenAPI 3.1: one operation per route, with x-payment-info and x-free-sample for x402 discovery.
import type { Config } from "../config.ts";
import { catalogVersion, type ProductDescription } from "./describe.ts";

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

function operation(config: Config, d: ProductDescription) {
  const op: Record<string, unknown> = {
    operationId: d.sku.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) =>
      c ? c.toUpperCase() : "",
    ),
    summary: d.summary,
    description: d.description,
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
    op["x-payment-info"] = {
      protocol: "x402",
      x402Version: 2,
      scheme: "exact",
      price: d.price.priceUsd,
      priceUsd: d.price.priceUsd,
      amount: d.price.amount,
      currency: "USDC",
      pricingMode: d.price.dynamic ? "dynamic" : "fixed",
      ...(d.price.formula ? { formula: d.price.formula } : {}),
      networks: config.networks.map((n) => n.caip2),
    };
    if (d.freeSampleUrl) op["x-free-sample"] = d.freeSampleUrl;
  }
  return op;
}

export function buildOpenApi(config: Config, descriptions: ProductDescription[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const d of descriptions) {
    paths[d.path] ??= {};
    (paths[d.path] as Record<string, unknown>)[d.method.toLowerCase()] = operation(config, d);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "paycall",
      version: "1.0.0",
      description:
        "Pay-per-call JSON data API paid in USDC through x402 v2. Call a paid URL, receive 402 with PAYMENT-REQUIRED, repeat it with PAYMENT-SIGNATURE. Charged only for 2xx answers.",
      contact: { name: config.operatorName, email: config.contact },
    },
    servers: [{ url: config.publicUrl }],
    "x-catalog-version": catalogVersion(descriptions),
    paths,
    components: { schemas: { Error: errorSchema, PaymentRequired: paymentRequiredSchema } },
  };
}
