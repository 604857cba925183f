// GET /metrics on the API: the metrics scrape behind ADMIN_TOKEN, 404 to anyone else (as if absent).
import type { Context } from "hono";
import type { Metrics } from "../observability/metrics.ts";
import { jsonResponse } from "../responses.ts";
import { bearerAuthorised, presentsCredential } from "./auth.ts";
import type { SignInLimiter } from "./sign-in-limit.ts";

/** Failed sign-ins count as on the admin routes (the same token opens both). */
export interface MetricsGuard {
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
    return jsonResponse(
      429,
      { error: "too_many_sign_in_failures", message: `Retry after ${wait} s.`, charged: false },
      { "retry-after": String(wait) },
    );
  if (!bearerAuthorised(c, adminToken)) {
    if (client !== undefined && presentsCredential(c)) guard?.signIns.fail(client);
    return jsonResponse(404, { error: "not_found", message: "No such route.", charged: false });
  }
  const { body, contentType } = await metrics.scrape();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
