// What every document (catalog, OpenAPI, well-known, Bazaar, terms) says about one product, computed once.
import { z } from "zod";
import type { Config } from "../config.ts";
import { sha256 } from "../sha256.ts";
import { usdToAtomic } from "../x402/shared/money.ts";
import { type AnyProduct, isFree } from "./product.ts";

export type JsonSchema = Record<string, unknown>;

interface ParameterDescription {
  name: string;
  in: "query";
  type: string;
  required: boolean;
  description?: string;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  aliasOf?: string;
  schema: JsonSchema;
}

export interface PriceDescription {
  /** USD decimal string; for dynamic prices, the minimum. */
  priceUsd: string;
  /** Atomic USDC (6 decimals). */
  amount: string;
  dynamic: boolean;
  /** Dynamic prices: the most a valid request can cost (USD). */
  maxUsd?: string;
  formula?: string;
  /** Also sold by use: the 402 offers `upto` beside `exact` where the facilitator supports it. */
  billedByUse?: boolean;
}

export interface ProductDescription
  extends Pick<AnyProduct, "sku" | "method" | "path" | "summary" | "description" | "status"> {
  mode: "paid" | "free";
  tags: string[];
  price: PriceDescription;
  parameters: ParameterDescription[];
  bodySchema?: JsonSchema;
  answerSchema: JsonSchema;
  freeSampleUrl?: string;
  /** A valid request's parameters: the free sample, or the declared example. */
  exampleQuery?: Record<string, string>;
  resourceUrl: string;
  product: AnyProduct;
}

export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  return json;
}

function describeParameters(product: AnyProduct): ParameterDescription[] {
  if (!product.query) return [];
  const schema = toJsonSchema(product.query, "input");
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const parameters: ParameterDescription[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const variants = (property.anyOf as JsonSchema[] | undefined)?.filter((v) => v.type !== "null") ?? [
      property,
    ];
    const main = variants[0] ?? property;
    const parameter: ParameterDescription = {
      name,
      in: "query",
      type: String(main.type ?? "string"),
      required: required.has(name) && property.default === undefined,
      schema: property,
    };
    for (const key of [
      "description",
      "enum",
      "minLength",
      "maxLength",
      "minimum",
      "maximum",
      "pattern",
      "default",
    ] as const) {
      const value = property[key] ?? main[key];
      if (value !== undefined) (parameter as unknown as Record<string, unknown>)[key] = value;
    }
    parameters.push(parameter);
  }
  for (const [alias, target] of Object.entries(product.aliases ?? {})) {
    const original = parameters.find((p) => p.name === target);
    if (original)
      parameters.push({
        ...original,
        name: alias,
        required: false,
        aliasOf: target,
        description: `Alias of ${target}.`,
      });
  }
  return parameters;
}

export function describePrice(product: AnyProduct): PriceDescription {
  if (typeof product.price === "string") {
    return { priceUsd: product.price, amount: usdToAtomic(product.price).toString(), dynamic: false };
  }
  return {
    priceUsd: product.price.minUsd,
    amount: usdToAtomic(product.price.minUsd).toString(),
    dynamic: true,
    maxUsd: product.price.maxUsd,
    formula: product.price.formula,
    ...(product.price.billedByUse ? { billedByUse: true } : {}),
  };
}

export function sampleUrl(config: Config, product: AnyProduct): string | undefined {
  if (!product.sample || isFree(product)) return undefined;
  return `${config.publicUrl}${product.path}?${new URLSearchParams({ ...product.sample, sample: "1" }).toString()}`;
}

export function describeProduct(config: Config, product: AnyProduct): ProductDescription {
  const description: ProductDescription = {
    sku: product.sku,
    method: product.method,
    path: product.path,
    summary: product.summary,
    description: product.description,
    status: product.status,
    mode: isFree(product) ? "free" : "paid",
    tags: product.tags ?? [],
    price: describePrice(product),
    parameters: describeParameters(product),
    answerSchema: toJsonSchema(product.answer, "output"),
    resourceUrl: `${config.publicUrl}${product.path}`,
    product,
  };
  if (product.body) description.bodySchema = toJsonSchema(product.body, "input");
  const exampleQuery = product.sample ?? product.example;
  if (exampleQuery) description.exampleQuery = exampleQuery;
  const freeSampleUrl = sampleUrl(config, product);
  if (freeSampleUrl) description.freeSampleUrl = freeSampleUrl;
  return description;
}

/** Changes whenever a product's route, price, parameters, status or answer shape changes. */
export function catalogVersion(descriptions: ProductDescription[]): string {
  const material = descriptions.map((d) => [
    d.sku,
    d.method,
    d.path,
    d.status,
    d.price,
    d.parameters,
    d.bodySchema,
    d.answerSchema,
  ]);
  return sha256(JSON.stringify(material)).slice(0, 16);
}
