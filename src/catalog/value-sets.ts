// Filters with a known value set (a product's `valueSets`): a value outside the set can never match, so it is
// refused before payment with a 400 naming the parameter, instead of selling an empty answer. The sets are read
// from the data at most once a minute per product and parameter.
import { type AnyProduct, badRequest, type ErrorOutcome, type HandlerContext } from "./product.ts";

const FRESH_MS = 60_000;
const SHOWN_VALUES = 20;

interface Cached {
  at: number;
  values: Promise<Set<string>>;
}

const cache = new WeakMap<AnyProduct, Map<string, Cached>>();

function valuesOf(product: AnyProduct, name: string, ctx: HandlerContext, now: number): Promise<Set<string>> {
  const set = product.valueSets?.[name];
  if (!set) return Promise.resolve(new Set());
  let byName = cache.get(product);
  if (!byName) {
    byName = new Map();
    cache.set(product, byName);
  }
  const cached = byName.get(name);
  if (cached && now - cached.at < FRESH_MS) return cached.values;
  const fold = set.fold ?? ((v: string) => v);
  const values = set.values(ctx).then((all) => new Set([...all].map(fold)));
  const entry = { at: now, values };
  values.catch(() => {
    if (byName.get(name) === entry) byName.delete(name);
  });
  byName.set(name, entry);
  return values;
}

/** The first declared filter whose given value is outside its set, as a 400; undefined when all are known. */
export async function checkValueSets(
  product: AnyProduct,
  params: Record<string, string>,
  ctx: HandlerContext,
  now = Date.now(),
): Promise<ErrorOutcome | undefined> {
  for (const [name, set] of Object.entries(product.valueSets ?? {})) {
    const given = params[name];
    if (given === undefined) continue;
    const values = await valuesOf(product, name, ctx, now);
    // Nothing on file yet (a store still filling): the handler answers, rather than refusing every value.
    if (values.size === 0) continue;
    if (values.has((set.fold ?? ((v: string) => v))(given.trim()))) continue;
    const shown = [...values].sort().slice(0, SHOWN_VALUES);
    const more = values.size > SHOWN_VALUES ? `, … (${values.size} in all)` : "";
    return badRequest(
      name,
      `${name}: no ${JSON.stringify(given)} on file; known values: ${shown.join(", ")}${more}${set.hint ? ` (${set.hint})` : ""}`,
    );
  }
  return undefined;
}
