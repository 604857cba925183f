// The field dictionary a family's free `schema` route serves: every field of its products' answers, flattened
// from the same zod answer schemas (and the same JSON Schema conversion) the OpenAPI document is built from.
import { z } from "zod";
import { type JsonSchema, toJsonSchema } from "./describe.ts";
import { type AnyProduct, isFree, ok, product, type SourceInfo } from "./product.ts";

const FieldEntry = z.object({
  path: z
    .string()
    .describe("Dotted path of the field in the answer; `[]` marks array items, `{}` the values of a map"),
  type: z.string().describe("JSON type(s) of the value, e.g. string, integer, object, array"),
  required: z.boolean().describe("Always present in the answer (its value may still be null when nullable)"),
  nullable: z.boolean().describe("null stands for unknown or not applicable"),
  description: z.string().nullable().describe("What the field means, with its unit where it has one"),
  format: z.string().nullable().describe("String format (date-time, date, uri …), when declared"),
  enum: z.array(z.unknown()).nullable().describe("The allowed values, when the field is an enumeration"),
});

type FieldEntryBody = z.infer<typeof FieldEntry>;

const MAX_DEPTH = 12;

function variantsOf(schema: JsonSchema): JsonSchema[] {
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return variants?.length ? variants : [schema];
}

function typeNames(schema: JsonSchema): string[] {
  if ("const" in schema) return [schema.const === null ? "null" : typeof schema.const];
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
  return ["any"];
}

function firstString(schemas: JsonSchema[], key: string): string | null {
  for (const s of schemas) if (typeof s[key] === "string") return s[key] as string;
  return null;
}

function walk(
  schema: JsonSchema,
  path: string,
  required: boolean,
  out: FieldEntryBody[],
  depth: number,
  inheritedDescription: string | null = null,
): void {
  const variants = variantsOf(schema);
  const types = [...new Set(variants.flatMap(typeNames))];
  const nonNull = variants.filter((v) => !typeNames(v).every((t) => t === "null"));
  const values = variants.flatMap((v) =>
    Array.isArray(v.enum) ? (v.enum as unknown[]) : "const" in v ? [v.const] : [],
  );
  if (path !== "") {
    out.push({
      path,
      type: types.filter((t) => t !== "null").join("|") || "null",
      required,
      nullable: types.includes("null"),
      description: firstString([schema, ...variants], "description") ?? inheritedDescription,
      format: firstString(variants, "format"),
      enum: values.length > 1 ? values.filter((v) => v !== null) : null,
    });
  }
  if (depth >= MAX_DEPTH) return;
  for (const variant of nonNull) {
    const properties = variant.properties as Record<string, JsonSchema> | undefined;
    if (properties) {
      const requiredNames = new Set((variant.required ?? []) as string[]);
      for (const [name, child] of Object.entries(properties)) {
        walk(child, path ? `${path}.${name}` : name, requiredNames.has(name), out, depth + 1);
      }
    }
    const additional = variant.additionalProperties;
    if (additional && typeof additional === "object" && Object.keys(additional).length > 0) {
      walk(additional as JsonSchema, `${path}{}`, false, out, depth + 1);
    }
    const items = variant.items as JsonSchema | undefined;
    if (items && typeof items === "object") walk(items, `${path}[]`, false, out, depth + 1);
  }
}

/** Every field of an answer schema, in declaration order; a field reachable by two variants is listed once. */
export function fieldDictionary(answer: z.ZodType): FieldEntryBody[] {
  const out: FieldEntryBody[] = [];
  walk(toJsonSchema(answer, "output"), "", true, out, 0);
  const seen = new Set<string>();
  return out.filter((entry) => {
    if (seen.has(entry.path)) return false;
    seen.add(entry.path);
    return true;
  });
}

export const FieldDictionaryAnswer = z.object({
  ok: z.literal(true),
  family: z.string().describe("The product family the dictionary covers"),
  products: z.array(
    z.object({
      sku: z.string(),
      method: z.enum(["GET", "POST"]),
      path: z.string().describe("Route of the product"),
      priceUsd: z
        .string()
        .describe("Price per call in USD (0 for free routes; the minimum for dynamic prices)"),
      summary: z.string(),
      fields: z.array(FieldEntry).describe("Every field of the product's 200 answer"),
    }),
  ),
  openapi: z.string().describe("The OpenAPI document that declares the same answer schemas"),
  generatedAt: z.iso.datetime(),
});

type FieldDictionaryAnswerBody = z.infer<typeof FieldDictionaryAnswer>;

function priceOf(p: AnyProduct): string {
  if (isFree(p)) return "0";
  return typeof p.price === "string" ? p.price : p.price.minUsd;
}

interface SchemaRouteOptions {
  sku: string;
  path: string;
  family: string;
  /** Human name of the family for the summary: "npm package cards". */
  title: string;
  /** The products whose answers the dictionary describes (the schema route itself is not listed). */
  products: () => AnyProduct[];
  source?: SourceInfo;
  tags?: string[];
}

/** A free route serving the field dictionary of a family's answers. */
export function schemaRoute(options: SchemaRouteOptions) {
  let built: FieldDictionaryAnswerBody["products"] | undefined;
  return product({
    sku: options.sku,
    method: "GET",
    path: options.path,
    summary: `Field dictionary of the ${options.title} answers (free)`,
    description:
      `Free. Every field of the ${options.title} answers: path, JSON type, whether it is always present, ` +
      "whether it may be null, its meaning and unit, format and allowed values. Derived from the same answer " +
      "schemas as /openapi.json.",
    status: "live",
    tags: [...(options.tags ?? [options.family]), "schema"],
    price: "0",
    answer: FieldDictionaryAnswer,
    ...(options.source ? { source: options.source } : {}),
    async handle() {
      built ??= options.products().map((p) => ({
        sku: p.sku,
        method: p.method,
        path: p.path,
        priceUsd: priceOf(p),
        summary: p.summary,
        fields: fieldDictionary(p.answer),
      }));
      return ok({
        ok: true as const,
        family: options.family,
        products: built,
        openapi: "/openapi.json",
        generatedAt: new Date().toISOString(),
      });
    },
  });
}
