// A schema cut down to its top levels (names and types), deeper objects and arrays keeping only their type:
// what fits in the PAYMENT-REQUIRED header (bazaar-header.ts); the whole schema stays in /openapi.json and in
// the 402's body.
import type { JsonSchema } from "./describe.ts";

/** Bounds zod writes on every integer (±2^53 − 1): they say nothing a buyer needs. */
const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]);

const CHILD_CONSTRAINTS = [
  "required",
  "additionalProperties",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "uniqueItems",
] as const;

/** The schema to `depth` levels of nesting; deeper objects and arrays keep only their type. */
export function outlineSchema(schema: JsonSchema, depth: number): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "minimum" || key === "maximum") && SAFE_INTEGER_BOUNDS.has(value as number)) continue;
    if (key === "properties" || key === "items" || key === "anyOf" || key === "oneOf") continue;
    out[key] = value;
  }
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    const key = schema.anyOf ? "anyOf" : "oneOf";
    out[key] = variants.map((v) => outlineSchema(v, depth));
  }
  if (depth <= 0) {
    // Without its members an outlined object or array says nothing about how many it holds.
    for (const key of CHILD_CONSTRAINTS) delete out[key];
    return out;
  }
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [
        k,
        outlineSchema(v, depth - 1),
      ]),
    );
  }
  if (schema.items) out.items = outlineSchema(schema.items as JsonSchema, depth - 1);
  return out;
}
