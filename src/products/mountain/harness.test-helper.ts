// Used by this family's tests only: the shared family harness opened on the mountain family.
import { type FamilyTestContext, openFamilyContext } from "../../../test/family-harness.ts";
import { mountainFamily } from "./index.ts";

export {
  type LoopbackUpstream,
  runWarmerRecorded,
  startLoopbackUpstream,
} from "../../../test/family-harness.ts";

/** Replay mode (sample dataset and recordings) unless env says otherwise. */
export function openTestContext(env: Record<string, string> = {}): Promise<FamilyTestContext> {
  return openFamilyContext(mountainFamily, env);
}

/** Calls a product the way the route does after validation: check first, then handle. */
export async function call<Q>(
  product: {
    query?: { parse: (v: unknown) => Q };
    check?: (input: { query: Q; body: undefined }, ctx: FamilyTestContext) => Promise<unknown>;
    handle: (
      input: { query: Q; body: undefined },
      ctx: FamilyTestContext,
    ) => Promise<{ status: number; body: unknown }>;
  },
  params: Record<string, string>,
  ctx: FamilyTestContext,
): Promise<{ status: number; body: any }> {
  const query = (product.query ? product.query.parse(params) : {}) as Q;
  const input = { query, body: undefined };
  const problem = (await product.check?.(input, ctx)) as { status: number; body: unknown } | undefined;
  if (problem) return problem;
  return product.handle(input, ctx);
}
