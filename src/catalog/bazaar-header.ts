// The Bazaar declaration as the PAYMENT-REQUIRED header carries it. A proxy with default buffers holds a response
// head of 4 KB (nginx's proxy_buffer_size, one memory page), and the header is base64 of the whole payment
// request, so the declaration there is cut down to what fits: the answer schema to fewer levels, then without
// the answer's placeholder example, the input schema to its top level, the answer to its bare type, and last no
// answer at all. Each step keeps a declaration the SDK's validator accepts (the example still satisfies the
// shorter schema) and, but the last, what indexers read: the input and answer schemas. The whole declaration
// stays in the 402's body and /openapi.json.
import type { JsonSchema } from "./describe.ts";
import { exampleFromSchema } from "./schema-example.ts";
import { outlineSchema } from "./schema-outline.ts";

/** A Bazaar extension as declared and enriched: `info` (input, output) and `schema` (the JSON Schema of info). */
export interface BazaarDeclaration {
  info: { input: Record<string, unknown>; output?: { type: string; example?: unknown } };
  schema: JsonSchema;
  [member: string]: unknown;
}

/** Levels of the answer schema tried with its placeholder example, from the deepest to its top level. */
const ANSWER_DEPTHS = [6, 4, 3, 2, 1];

interface Cut {
  answerDepth: number;
  /** Without the answer's placeholder example (the SDK's schema does not require one). */
  noExample?: boolean;
  /** The input schema's levels; undefined: whole. */
  inputDepth?: number;
}

/** After the answer depths: then without its example, the input to its top level, the answer to its type. */
const LAST_CUTS: Cut[] = [
  { answerDepth: 1, noExample: true },
  { answerDepth: 1, noExample: true, inputDepth: 1 },
  { answerDepth: 0, noExample: true, inputDepth: 1 },
  { answerDepth: 0, noExample: true, inputDepth: 0 },
];

function schemaMember(schema: JsonSchema, part: "input" | "output"): Record<string, JsonSchema> | undefined {
  const member = (schema.properties as Record<string, JsonSchema> | undefined)?.[part];
  return member?.properties as Record<string, JsonSchema> | undefined;
}

/** The input's own schema: query parameters for GET, the body for POST. */
function inputKey(declaration: BazaarDeclaration): "queryParams" | "body" | undefined {
  const input = schemaMember(declaration.schema, "input");
  if (input?.body) return "body";
  if (input?.queryParams) return "queryParams";
  return undefined;
}

/** The declaration cut as `cut` says. */
function outlined(
  declaration: BazaarDeclaration,
  { answerDepth, noExample, inputDepth }: Cut,
): BazaarDeclaration {
  const copy = structuredClone(declaration);
  const output = schemaMember(copy.schema, "output");
  if (output?.example && copy.info.output) {
    output.example = outlineSchema(output.example, answerDepth);
    copy.info.output = noExample
      ? { type: copy.info.output.type }
      : { ...copy.info.output, example: exampleFromSchema(output.example) };
  }
  const key = inputKey(copy);
  const input = schemaMember(copy.schema, "input");
  if (key && input && inputDepth !== undefined)
    input[key] = outlineSchema(input[key] as JsonSchema, inputDepth);
  return copy;
}

/** The declaration without its answer (the SDK declares the output as optional). */
function withoutAnswer(declaration: BazaarDeclaration): BazaarDeclaration {
  const copy = outlined(declaration, { answerDepth: 0, inputDepth: 0 });
  const { output: _output, ...info } = copy.info;
  copy.info = info;
  delete (copy.schema.properties as Record<string, unknown>).output;
  return copy;
}

/** Each shorter declaration in turn, from the richest to the least the SDK's validator still accepts. */
function* shorterDeclarations(declaration: BazaarDeclaration): Generator<BazaarDeclaration> {
  yield declaration;
  for (const answerDepth of ANSWER_DEPTHS) yield outlined(declaration, { answerDepth });
  for (const cut of LAST_CUTS) yield outlined(declaration, cut);
  yield withoutAnswer(declaration);
}

/**
 * The richest form of the declaration whose JSON takes at most `budget` bytes, or the least one when none
 * does (the caller then knows the header is over and says so).
 */
export function bazaarWithin(declaration: BazaarDeclaration, budget: number): BazaarDeclaration {
  let last = declaration;
  for (const candidate of shorterDeclarations(declaration)) {
    if (Buffer.byteLength(JSON.stringify(candidate)) <= budget) return candidate;
    last = candidate;
  }
  return last;
}
