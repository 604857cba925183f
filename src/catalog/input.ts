// Turns a request into a product's validated input, or a 400 naming the parameter (before any payment).
import type { z } from "zod";
import { ERRORS, errorBody } from "../errors.ts";
import { type AnyProduct, badRequest, type ErrorOutcome, type RequestInput } from "./product.ts";
import { hasControlCharacters } from "./text-guard.ts";

const MAX_PARAM_LENGTH = 2048;
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export interface ParsedRequest {
  input: RequestInput<unknown, unknown>;
  /** `sample=1` was given (it is not part of the product's own parameters). */
  sampleRequested: boolean;
  /** The request's own parameters after aliases, as strings (used to recognise the free sample). */
  params: Record<string, string>;
}

type ParseResult =
  | { ok: true; value: ParsedRequest }
  | {
      ok: false;
      error: ErrorOutcome | { status: 413; body: ErrorOutcome["body"] };
      /** The body was absent or `{}`: with an empty query, an indexer's probe (see `isColdProbe`). */
      emptyBody?: boolean;
    };

/** A body an indexer's probe sends: none at all, or an empty JSON object. */
function isEmptyBody(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === "" || /^\{\s*\}$/.test(trimmed);
}

function shapeKeys(schema: z.ZodType | undefined): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function firstIssue(error: z.ZodError, fallbackName: string): ErrorOutcome {
  const issue = error.issues[0];
  const name = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : fallbackName;
  const message = issue?.message ?? "is invalid";
  return badRequest(name, `${name}: ${message}`);
}

/** A `%` not followed by two hex digits, or escapes that do not decode to UTF-8. */
function badEscapes(raw: string): boolean {
  if (!raw.includes("%")) return false;
  try {
    decodeURIComponent(raw.replaceAll("+", " "));
    return false;
  } catch {
    return true;
  }
}

/**
 * The parameter of the raw query string (`url.search`) whose percent-escapes are malformed (`%zz`, a lone
 * `%`, `%C3` cut short): named in a 400, rather than read as literal text that a later decode trips over.
 */
export function malformedEscape(rawSearch: string): ErrorOutcome | undefined {
  if (!rawSearch.includes("%")) return undefined;
  for (const pair of rawSearch.replace(/^\?/, "").split("&")) {
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? "" : pair.slice(eq + 1);
    if (!badEscapes(rawName) && !badEscapes(rawValue)) continue;
    const name = badEscapes(rawName) ? "query" : decodeURIComponent(rawName.replaceAll("+", " "));
    return badRequest(
      name,
      `${name}: malformed percent-escape (a % must be followed by two hex digits of UTF-8; write %25 for a literal %)`,
    );
  }
  return undefined;
}

const ONE_LINE_MESSAGE =
  "must be one line without control characters (no line breaks, NUL or other controls, or bidirectional overrides)";

/** The schema's parse; a refinement that throws (a decode of odd text) is a 400 naming its field, never a 500. */
function safeParseQuery(
  schema: z.ZodType,
  params: Record<string, string>,
): z.ZodSafeParseResult<unknown> | ErrorOutcome {
  try {
    return schema.safeParse(params);
  } catch {
    const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
    for (const [name, field] of Object.entries(shape)) {
      if (!(name in params)) continue;
      try {
        field.safeParse(params[name]);
      } catch {
        return badRequest(name, `${name}: is not a valid value`);
      }
    }
    return badRequest("query", "query: the parameters are not valid together");
  }
}

export function parseQuery(product: AnyProduct, search: URLSearchParams): ParseResult {
  const allowed = new Set(shapeKeys(product.query));
  const aliases = product.aliases ?? {};
  const params: Record<string, string> = {};
  let sampleRequested = false;
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    if (values.length > 1) return { ok: false, error: badRequest(name, `${name}: give this parameter once`) };
    const value = values[0] as string;
    if (name === "sample") {
      if (value !== "1")
        return {
          ok: false,
          error: badRequest("sample", "sample: the only accepted value is 1 (the product's free sample)"),
        };
      sampleRequested = true;
      continue;
    }
    const canonical = aliases[name] ?? name;
    if (!allowed.has(canonical)) {
      const names = [...allowed, ...Object.keys(aliases)];
      return {
        ok: false,
        error: badRequest(
          name,
          `${name}: unknown parameter; this endpoint takes ${names.length ? names.join(", ") : "no parameters"}`,
        ),
      };
    }
    if (value.length > MAX_PARAM_LENGTH) {
      return { ok: false, error: badRequest(name, `${name}: longer than ${MAX_PARAM_LENGTH} characters`) };
    }
    // Query parameters are single-line values (ids, names, searches); pasted multi-line text goes in a body.
    if (hasControlCharacters(value)) {
      return { ok: false, error: badRequest(name, `${name}: ${ONE_LINE_MESSAGE}`) };
    }
    if (canonical in params && params[canonical] !== value) {
      return {
        ok: false,
        error: badRequest(name, `${name} and ${canonical} mean the same; give one of them`),
      };
    }
    params[canonical] = value;
  }
  let query: unknown = {};
  if (product.query) {
    const parsed = safeParseQuery(product.query, params);
    if ("status" in parsed) return { ok: false, error: parsed };
    if (!parsed.success) return { ok: false, error: firstIssue(parsed.error, "query") };
    query = parsed.data;
  }
  return { ok: true, value: { input: { query, body: undefined }, sampleRequested, params } };
}

export async function parseBody(
  product: AnyProduct,
  request: Request,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<ParseResult | { ok: true; body: unknown; emptyBody: boolean }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = {
    ok: false as const,
    error: {
      status: ERRORS.body_too_large.status,
      body: errorBody("body_too_large", `The body is larger than ${maxBytes} bytes.`),
    },
  };
  if (declared > maxBytes) return tooLarge;
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) return tooLarge;
  const emptyBody = isEmptyBody(text);
  if (!product.body) return { ok: true, body: undefined, emptyBody };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      error: badRequest("body", "body: must be JSON (Content-Type: application/json)"),
      emptyBody,
    };
  }
  const parsed = product.body.safeParse(json);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error, "body"), emptyBody };
  return { ok: true, body: parsed.data, emptyBody };
}

/** True when the request's parameters are exactly the product's free sample. */
export function isSampleRequest(product: AnyProduct, params: Record<string, string>): boolean {
  const sample = product.sample;
  if (!sample) return false;
  const keys = Object.keys(params);
  return keys.length === Object.keys(sample).length && keys.every((k) => sample[k] === params[k]);
}

/** The request's identity for the ledger: method, path, sorted parameters and body. */
export function canonicalRequest(
  method: string,
  path: string,
  params: Record<string, string>,
  body: unknown,
): string {
  const query = new URLSearchParams(
    Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ).toString();
  return `${method} ${path}?${query}\n${body === undefined ? "" : JSON.stringify(body)}`;
}
