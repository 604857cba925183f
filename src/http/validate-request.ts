// A product request's parameters, checked before any payment is asked: the query (its raw escapes first), then
// a POST's body.
import { malformedEscape, type ParsedRequest, parseBody, parseQuery } from "../catalog/input.ts";
import type { AnyProduct } from "../catalog/product.ts";

/** What a bare request stands for when its parameters do not validate (its paid retry answers the 400). */
export const BARE_REQUEST: ParsedRequest = {
  input: { query: {}, body: undefined },
  sampleRequested: false,
  params: {},
};

export interface Validated {
  /** The request's parameters, when they are valid. */
  parsed?: ParsedRequest;
  /** The 400 (413) naming the parameter at fault, when they are not. */
  refused?: { status: number; body: Record<string, unknown> };
  /**
   * No parameters at all (GET with an empty query; POST with no body or `{}`): an indexer's or agent's probe,
   * answered on a paid route with its 402 so that it learns the price and how to call.
   */
  bare: boolean;
}

/** `body`: what a POST's body is read from (none: an empty body). */
export async function validateRequest(
  product: AnyProduct,
  url: URL,
  body: Request | undefined,
): Promise<Validated> {
  const emptyQuery = url.search === "" || url.search === "?";
  // URLSearchParams decodes a malformed percent-escape silently: the raw query is checked first.
  const escapes = malformedEscape(url.search);
  if (escapes) return { refused: escapes, bare: false };
  const parsed = parseQuery(product, url.searchParams);
  if (product.method !== "POST") {
    return parsed.ok
      ? { parsed: parsed.value, bare: emptyQuery }
      : { refused: parsed.error, bare: emptyQuery };
  }
  if (!parsed.ok) return { refused: parsed.error, bare: false };
  const read = await parseBody(product, body ?? new Request(url, { method: "POST" }));
  const bare = emptyQuery && "emptyBody" in read && read.emptyBody === true;
  if (!read.ok) return { refused: read.error, bare };
  parsed.value.input.body = "body" in read ? read.body : undefined;
  return { parsed: parsed.value, bare };
}
