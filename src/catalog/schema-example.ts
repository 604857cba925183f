// A placeholder instance of a JSON schema that satisfies its bounds (a validating facilitator checks it):
// shapes only, for discovery documents that want an example.
import type { JsonSchema } from "./describe.ts";

const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2026-01-01T00:00:00.000Z",
  date: "2026-01-01",
  uri: "https://example.com/",
  url: "https://example.com/",
  email: "someone@example.com",
};

export function exampleFromSchema(schema: JsonSchema, depth = 0): unknown {
  if (depth > 8) return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants?.length)
    return exampleFromSchema(
      variants.find((v) => v.type !== "null") ?? (variants[0] as JsonSchema),
      depth + 1,
    );
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [k, exampleFromSchema(v, depth + 1)]),
      );
    }
    case "array":
      return schema.items ? [exampleFromSchema(schema.items as JsonSchema, depth + 1)] : [];
    case "string": {
      const text = FORMAT_EXAMPLES[String(schema.format)] ?? "string";
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      return text.length >= min ? text : text.padEnd(min, "x");
    }
    case "integer":
    case "number":
      return numberExample(schema, type === "integer");
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

/** The smallest value the schema's bounds allow, from 0 up: validators reject 0 where the schema says > 0. */
function numberExample(schema: JsonSchema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  let value = 0;
  if (typeof schema.minimum === "number") value = Math.max(value, schema.minimum);
  if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) {
    value = integer ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + step;
  }
  if (typeof schema.maximum === "number" && value > schema.maximum) value = schema.maximum;
  if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) {
    value = schema.exclusiveMaximum - step;
  }
  return integer ? Math.ceil(value) : value;
}

/** A query-string example value as the input schema types it ("46.5" → 46.5 where the schema says number). */
export function typedExampleValue(value: string, schema: JsonSchema | undefined): unknown {
  const types = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  if (
    (types.includes("number") || types.includes("integer")) &&
    value.trim() !== "" &&
    Number.isFinite(Number(value))
  ) {
    return Number(value);
  }
  if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  return value;
}
