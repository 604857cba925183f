// GET /metrics on the API: the metrics scrape behind ADMIN_TOKEN, 404 to anyone else (as if absent).
import type { Context } from "hono";
import { errorResponse } from "../errors.ts";
import type { Metrics } from "../observability/metrics.ts";
import { bearerAuthorised, presentsCredential } from "./auth.ts";
import type { SignInLimiter } from "./sign-in-limit.ts";

/** Failed sign-ins count as on the admin routes (the same token opens both). */
interface MetricsGuard {
  signIns: SignInLimiter;
  client: (c: Context) => string;
}

export async function metricsRoute(
  c: Context,
  metrics: Metrics,
  adminToken: string | undefined,
  guard?: MetricsGuard,
) {
  const client = guard?.client(c);
  const wait = client === undefined ? 0 : (guard?.signIns.blockedFor(client) ?? 0);
  if (wait > 0)
    return errorResponse(
      "too_many_sign_in_failures",
      `Retry after ${wait} s.`,
      {},
      { "retry-after": String(wait) },
    );
  if (!bearerAuthorised(c, adminToken)) {
    if (client !== undefined && presentsCredential(c)) guard?.signIns.fail(client);
    return errorResponse("not_found", "No such route.");
  }
  const { body, contentType } = await metrics.scrape();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
