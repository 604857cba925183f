// An answer schema cut down to what fits the PAYMENT-REQUIRED header: proxies and clients refuse headers past
// 8–16 KB (nginx's default proxy buffer is 4–8 KB, undici's limit 16 KB), and the Bazaar declaration travels
// there. The outline keeps the top levels (names and types) and stops deeper; the whole schema stays in
// /openapi.json and in the 402's body.
import type { JsonSchema } from "./describe.ts";

/** The bytes the Bazaar declaration may take in the header; the rest is offers, accepts and the URL. */
export const BAZAAR_HEADER_BUDGET = 3000;

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

/** The deepest outline whose declaration `declare(outline)` fits the budget (at least the top level). */
export function fittingOutline<T>(
  schema: JsonSchema,
  declare: (outline: JsonSchema) => T,
  budget = BAZAAR_HEADER_BUDGET,
): T {
  let declared = declare(outlineSchema(schema, 6));
  for (let depth = 5; depth >= 1 && JSON.stringify(declared).length > budget; depth--) {
    declared = declare(outlineSchema(schema, depth));
  }
  return declared;
}
