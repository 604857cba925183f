// A placeholder instance of a JSON schema: shapes only, for discovery documents that want an example.
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
    case "string":
      return FORMAT_EXAMPLES[String(schema.format)] ?? "string";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}
