// Every product as an MCP tool, derived from the same descriptions as the routes, OpenAPI and Bazaar documents.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { declareDiscoveryExtension, type McpDiscoveryExtension } from "@x402/extensions/bazaar";
import type { JsonSchema, ProductDescription } from "../catalog/describe.ts";
import { compactSchema } from "../catalog/documents.ts";
import { otherSchemes, type SchemeOffers } from "../catalog/openapi.ts";
import { exampleFromSchema, typedExampleValue } from "../catalog/schema-example.ts";
import type { Config } from "../config.ts";
import { sha256 } from "../sha256.ts";

/** The `_meta` key under which tools/list states a paid tool's price (paycall's naming; not part of x402). */
const PRICE_META_KEY = "x402/price";
/** The argument that asks a paid tool for its free sample instead of a paid answer. */
export const SAMPLE_ARGUMENT = "sample";
export const MCP_PATH = "/mcp";
const MAX_TOOL_NAME = 64;

export interface McpTool {
  name: string;
  described: ProductDescription;
  /** The POST body is the arguments object itself (false: the body schema is not an object, sent as `body`). */
  argumentsAreBody: boolean;
  /** A paid GET tool with a free sample: it takes `sample: true`. */
  sampleable: boolean;
  definition: Tool;
  /** The Bazaar `mcp` discovery extension of a paid tool: `{ bazaar: … }`. */
  extensions?: Record<string, unknown>;
}

/**
 * The sku as an MCP tool name. MCP allows `[A-Za-z0-9_.-]`, but the model APIs that MCP clients hand tools to
 * (Anthropic's, OpenAI's) accept only `[A-Za-z0-9_-]{1,64}`, so dots become underscores: `macro.ecb.fx` →
 * `macro_ecb_fx`. A name that would pass 64 characters keeps its start and ends with a hash of the sku.
 */
function toolName(sku: string): string {
  const name = sku.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${sha256(sku).slice(0, 8)}`;
}

function isObjectSchema(schema: JsonSchema | undefined): schema is JsonSchema {
  return schema?.type === "object";
}

function isSampleable(d: ProductDescription): boolean {
  return d.mode === "paid" && d.method === "GET" && d.product.sample !== undefined;
}

function inputSchemaOf(d: ProductDescription, samplesPerHour: number): JsonSchema {
  if (d.method === "POST") {
    if (isObjectSchema(d.bodySchema)) return d.bodySchema;
    return { type: "object", properties: { body: d.bodySchema ?? {} }, required: ["body"] };
  }
  // Aliases stay HTTP-only (they are still accepted): a tool offers each parameter once.
  const parameters = d.parameters.filter((p) => !p.aliasOf);
  const properties: Record<string, JsonSchema> = Object.fromEntries(
    parameters.map((p) => [p.name, p.schema]),
  );
  const sample = d.product.sample;
  if (isSampleable(d)) {
    properties[SAMPLE_ARGUMENT] = {
      type: "boolean",
      description: `true: the free sample (nothing charged; ${samplesPerHour} an hour), for ${JSON.stringify(sample)} only`,
    };
  }
  const required = parameters.filter((p) => p.required).map((p) => p.name);
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** The price in tools/list: USD and atomic USDC; networks and schemes are the 402's (and the instructions'). */
function priceMeta(d: ProductDescription) {
  return {
    priceUsd: d.price.priceUsd,
    amount: d.price.amount,
    ...(d.price.dynamic ? { dynamic: true, formula: d.price.formula } : {}),
  };
}

/** Tool descriptions stay short: every agent session carries all of them in its context. */
const MAX_DESCRIPTION = 1000;

/** A description cut at its last whole sentence within `room`, pointing to the full text. */
function shortened(text: string, room: number): string {
  if (text.length <= room) return text;
  const more = " (The full description is in /openapi.json.)";
  const cut = text.slice(0, room - more.length);
  const end = cut.lastIndexOf(". ");
  return `${end > 0 ? cut.slice(0, end + 1) : cut}${more}`;
}

/** The product's description and one line on its price; how to pay is said once, in the server's instructions. */
function describeTool(d: ProductDescription): string {
  if (d.mode === "free") return shortened(d.description, MAX_DESCRIPTION);
  const price = d.price.dynamic
    ? `from ${d.price.priceUsd} USD (formula: _meta["${PRICE_META_KEY}"])`
    : `${d.price.priceUsd} USD`;
  const sample = isSampleable(d) ? `; free sample: ${SAMPLE_ARGUMENT}=true` : "";
  const priceLine = ` Paid (x402): ${price} per successful call${sample}.`;
  return `${shortened(d.description, MAX_DESCRIPTION - priceLine.length)}${priceLine}`;
}

function exampleArguments(d: ProductDescription): Record<string, unknown> | undefined {
  if (d.method === "POST") return d.product.exampleBody as Record<string, unknown> | undefined;
  const example = d.product.sample ?? d.product.example;
  if (!example) return undefined;
  const schemas = Object.fromEntries(d.parameters.map((p) => [p.name, p.schema]));
  return Object.fromEntries(Object.entries(example).map(([k, v]) => [k, typedExampleValue(v, schemas[k])]));
}

/** The Bazaar discovery extension of a paid tool (`input.type: "mcp"`), as the SDK declares it. */
function bazaarToolExtension(name: string, d: ProductDescription, inputSchema: JsonSchema) {
  const output = compactSchema(d.answerSchema) as JsonSchema;
  const example = exampleArguments(d);
  return declareDiscoveryExtension({
    toolName: name,
    description: d.summary,
    transport: "streamable-http",
    inputSchema,
    ...(example ? { example } : {}),
    output: { example: exampleFromSchema(output), schema: output },
  });
}

/** Throws when two products would become tools of the same name. */
export function checkToolNames(products: { sku: string }[]): void {
  const bySku = new Map<string, string>();
  for (const d of products) {
    const name = toolName(d.sku);
    const clash = bySku.get(name);
    if (clash) throw new Error(`MCP tool name ${name} is the name of both ${clash} and ${d.sku}`);
    bySku.set(name, d.sku);
  }
}

export function buildMcpTools(config: Config, descriptions: ProductDescription[]): McpTool[] {
  checkToolNames(descriptions);
  return descriptions.map((d) => {
    const name = toolName(d.sku);
    const inputSchema = inputSchemaOf(d, config.samplesPerHour);
    // No outputSchema: MCP requires every structuredContent to conform to it, and an unpaid call's result is
    // the x402 PaymentRequired in structuredContent (x402 MCP transport); the SDK's client rejects the result
    // otherwise. The answers' schemas (about 270 KB of the 417 KB tools/list had) are in /openapi.json and
    // in each 402's Bazaar declaration.
    const definition: Tool = {
      name,
      title: d.summary,
      description: describeTool(d),
      inputSchema: inputSchema as Tool["inputSchema"],
      // Every product reads data; none changes anything the caller owns. Answers come from outside sources.
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true },
      _meta: {
        "paycall/sku": d.sku,
        ...(d.mode === "paid" ? { [PRICE_META_KEY]: priceMeta(d) } : {}),
      },
    };
    return {
      name,
      described: d,
      argumentsAreBody: d.method !== "POST" || isObjectSchema(d.bodySchema),
      sampleable: isSampleable(d),
      definition,
      ...(d.mode === "paid" ? { extensions: bazaarToolExtension(name, d, inputSchema) } : {}),
    };
  });
}

/** The MCP part of `/.well-known/x402`: the endpoint and every paid tool with its Bazaar input declaration. */
export function mcpDiscovery(config: Config, tools: McpTool[], offers: SchemeOffers) {
  const paid = tools.filter((t) => t.described.mode === "paid");
  return {
    endpoint: `${config.publicUrl}${MCP_PATH}`,
    transport: "streamable-http",
    count: paid.length,
    tools: paid.map((t) => ({
      toolName: t.name,
      sku: t.described.sku,
      description: t.described.summary,
      priceUsd: t.described.price.priceUsd,
      amount: t.described.price.amount,
      dynamicPrice: t.described.price.dynamic,
      scheme: "exact",
      networks: config.networks.map((n) => n.caip2),
      ...otherSchemes(t.described.price, offers),
      freeSample: t.sampleable,
      // The Bazaar declaration's input (type "mcp"); the whole extension comes with each tool's 402.
      input: (t.extensions?.bazaar as McpDiscoveryExtension | undefined)?.info.input,
    })),
    instructions:
      'Every product is also an MCP tool (Streamable HTTP). An unpaid call of a paid tool returns isError with the x402 PaymentRequired (x402 MCP transport); repeat it with the PaymentPayload in params._meta["x402/payment"]. The settlement comes back in result._meta["x402/payment-response"]. Charged only for successful answers.',
  };
}
