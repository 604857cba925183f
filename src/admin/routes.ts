// The operator routes under /admin, all behind ADMIN_TOKEN and answering 404 to anyone else (as if absent):
// GET /admin (the page), GET /admin/stats (the same figures as JSON), GET /admin/ledger, POST /admin/refunds/:id,
// POST /admin/sessions/revoke (signs every browser out), POST /admin/channels/refund (channel-refund.ts). Failed sign-ins are limited per client (sign-in-limit.ts).
import { type Context, Hono } from "hono";
import type { BlankEnv } from "hono/types";
import { clientAddress } from "../abuse/client-address.ts";
import type { Family } from "../catalog/product.ts";
import type { Config } from "../config.ts";
import { ERRORS, type ErrorCode, errorResponse } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { PaidCallsNow } from "../observability/metrics.ts";
import { jsonResponse } from "../responses.ts";
import { LEDGER_STATES, type LedgerState } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { clientKey } from "../x402/seller/samples.ts";
import {
  bearerAuthorised,
  cookieAuthorised,
  presentsCredential,
  sameOrigin,
  sessionCookie,
  tokenMatches,
} from "./auth.ts";
import { type ChannelRefunder, channelRefund } from "./channel-refund.ts";
import { adminPage, messagePage } from "./page.ts";
import { parsePeriod } from "./period.ts";
import { parseLedgerId, parseRefundInput, transactionFitsNetwork } from "./refund-input.ts";
import { AdminSessions } from "./sessions.ts";
import { SignInLimiter } from "./sign-in-limit.ts";
import { collectStats, declaredWarmers, money } from "./stats.ts";

interface AdminDeps {
  config: Config;
  store: Store;
  log: Logger;
  /** The served families, for their warmers' expected periods. */
  families?: Family[];
  /** Failed sign-ins per client, shared with GET /metrics. */
  signIns?: SignInLimiter;
  /** This node's paid calls in flight, once payments are ready. */
  paidCallsNow?: () => PaidCallsNow | undefined;
  /** Refunds a batch-settlement channel's remainder, once payments are ready and the scheme is served. */
  channelRefunder?: () => ChannelRefunder | undefined;
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // Not no-referrer: with it the browser sends `Origin: null` on the page's own form posts.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};
const NO_STORE = { "cache-control": "no-store" };

function notFound(): Response {
  return errorResponse("not_found", "No such route.");
}

function htmlResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

function isForm(c: Context): boolean {
  const type = c.req.header("content-type") ?? "";
  return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data");
}

/** What every admin route needs: the deps, the declared warmers, failed sign-ins and the session store. */
interface AdminContext extends AdminDeps {
  warmers: ReturnType<typeof declaredWarmers>;
  signIns: SignInLimiter;
  sessions: AdminSessions;
}

/**
 * Undefined when the request may use the admin routes, else the answer: 429 to a client past its failed
 * sign-ins, 404 (as if absent) to anyone else. A state-changing request on the cookie must also come from a
 * page of this service (same-origin Origin or Referer).
 */
async function refusal(ctx: AdminContext, c: Context, changesState = false): Promise<Response | undefined> {
  const { config, signIns } = ctx;
  const client = clientKey(clientAddress(c, config));
  const wait = signIns.blockedFor(client);
  if (wait > 0) {
    return errorResponse(
      "too_many_sign_in_failures",
      `Too many failed admin sign-ins from this client; retry after ${wait} s.`,
      { retryAfterSec: wait },
      { "retry-after": String(wait), ...NO_STORE },
    );
  }
  if (bearerAuthorised(c, config.adminToken)) return undefined;
  if (config.adminToken && cookieAuthorised(c, config.adminToken, await ctx.sessions.revokedAt())) {
    // A valid cookie on a cross-site request is not a failed sign-in (a page cannot lock the operator out).
    return !changesState || sameOrigin(c, config.publicUrl) ? undefined : notFound();
  }
  if (presentsCredential(c)) signIns.fail(client);
  return notFound();
}

async function statsFor(ctx: AdminContext, c: Context) {
  const { config, store, log } = ctx;
  const period = parsePeriod({ from: c.req.query("from"), to: c.req.query("to") });
  if (!period.ok) return period;
  // This node's latest counts first, so the page shows them at once.
  await store.dailyCounts
    .flush()
    .catch((error: unknown) => log.warn({ err: String(error) }, "counts flush failed"));
  const inFlight = { limit: config.paidCallsMaxInFlight, node: ctx.paidCallsNow?.() };
  return {
    ok: true as const,
    stats: await collectStats(store, period.period, { warmers: ctx.warmers, inFlight }),
  };
}

/** A link carries the token once: it becomes an HttpOnly cookie and leaves the address bar at once. */
async function signInFromLink(ctx: AdminContext, c: Context, token: string): Promise<Response> {
  const { config } = ctx;
  const blocked = await refusal(ctx, c);
  // The token in the link is the credential here: counted as a failed sign-in when it is wrong.
  if (blocked?.status === 429) return blocked;
  if (!config.adminToken || !tokenMatches(token, config.adminToken)) {
    ctx.signIns.fail(clientKey(clientAddress(c, config)));
    return notFound();
  }
  const url = new URL(c.req.url);
  url.searchParams.delete("token");
  return new Response(null, {
    status: 303,
    headers: {
      location: `/admin${url.search}`,
      "set-cookie": sessionCookie(config.adminToken, config.publicUrl),
      ...PAGE_HEADERS,
    },
  });
}

async function adminPageRoute(ctx: AdminContext, c: Context): Promise<Response> {
  const token = c.req.query("token");
  if (token !== undefined) return signInFromLink(ctx, c, token);
  const refused = await refusal(ctx, c);
  if (refused) return refused;
  const result = await statsFor(ctx, c);
  if (!result.ok) return htmlResponse(400, messagePage(`Bad ${result.parameter}`, result.message));
  const refunded = c.req.query("refunded");
  const flash =
    refunded && /^\d{1,16}$/.test(refunded) ? `Refund recorded for ledger row ${refunded}.` : undefined;
  return htmlResponse(
    200,
    adminPage(result.stats, { publicUrl: ctx.config.publicUrl, ...(flash ? { flash } : {}) }),
  );
}

async function statsRoute(ctx: AdminContext, c: Context): Promise<Response> {
  const refused = await refusal(ctx, c);
  if (refused) return refused;
  const result = await statsFor(ctx, c);
  if (!result.ok) {
    return errorResponse("invalid_parameter", result.message, { parameter: result.parameter }, NO_STORE);
  }
  return jsonResponse(200, result.stats, NO_STORE);
}

async function ledgerRoute(ctx: AdminContext, c: Context): Promise<Response> {
  const { store } = ctx;
  const refused = await refusal(ctx, c);
  if (refused) return refused;
  const state = c.req.query("state");
  const rows = await store.ledger.list({
    state: LEDGER_STATES.includes(state as LedgerState) ? (state as LedgerState) : undefined,
    limit: Math.min(1000, Number(c.req.query("limit") ?? 100) || 100),
  });
  return jsonResponse(
    200,
    {
      totals: await store.ledger.totals(),
      refundsDue: await store.ledger.refundsDue(),
      rows: rows.map(({ payment_payload: _p, requirements: _r, held_response: _h, ...row }) => row),
    },
    NO_STORE,
  );
}

type Refuse = (code: ErrorCode, message: string, extra?: Record<string, unknown>) => Response;

/** The answer to a refund the store has accepted or turned down. */
function refundAnswer(
  ctx: AdminContext,
  id: number,
  result: Awaited<ReturnType<Store["refunds"]["record"]>>,
  form: boolean,
  refuse: Refuse,
): Response {
  switch (result.outcome) {
    case "no_such_row":
      return refuse("not_found", `No ledger row ${id}.`);
    case "not_due":
      return refuse("not_refund_due", `Ledger row ${id} is not owed a refund: ${result.reason}.`);
    case "already_refunded":
      return refuse(
        "already_refunded",
        `Ledger row ${id} was already refunded (transaction ${result.refund.transaction}, recorded ${result.refund.recordedAt}).`,
        { refund: result.refund },
      );
    case "recorded": {
      const { refund } = result;
      ctx.log.info(
        { ledgerId: refund.ledgerId, transaction: refund.transaction, atomic: refund.amount },
        "refund recorded by the operator",
      );
      if (form)
        return new Response(null, {
          status: 303,
          headers: { location: `/admin?refunded=${refund.ledgerId}`, ...NO_STORE },
        });
      return jsonResponse(201, { refund: { ...refund, ...money(BigInt(refund.amount)) } }, NO_STORE);
    }
  }
}

async function refundRoute(ctx: AdminContext, c: Context<BlankEnv, "/refunds/:id">): Promise<Response> {
  const { store } = ctx;
  const form = isForm(c);
  const refused = await refusal(ctx, c, true);
  if (refused) return refused;
  const refuse: Refuse = (code, message, extra = {}) =>
    form
      ? htmlResponse(ERRORS[code].status, messagePage("Refund not recorded", message))
      : errorResponse(code, message, extra, NO_STORE);
  const invalid = (parameter: string, message: string) => refuse("invalid_parameter", message, { parameter });

  const id = parseLedgerId(c.req.param("id"));
  if (!id.ok) return invalid(id.parameter, id.message);
  let body: unknown;
  try {
    body = form ? await c.req.parseBody() : await c.req.json();
  } catch {
    return invalid("body", 'body: expected JSON { "transaction": "0x…", "note": "…" }');
  }
  const input = parseRefundInput(body);
  if (!input.ok) return invalid(input.parameter, input.message);
  const row = await store.ledger.get(id.value);
  if (!row) return refuse("not_found", `No ledger row ${id.value}.`);
  const fits = transactionFitsNetwork(input.value.transaction, row.network);
  if (!fits.ok) return invalid(fits.parameter, fits.message);
  const result = await store.refunds.record(id.value, input.value);
  return refundAnswer(ctx, id.value, result, form, refuse);
}

async function revokeSessionsRoute(ctx: AdminContext, c: Context): Promise<Response> {
  const refused = await refusal(ctx, c, true);
  if (refused) return refused;
  const at = await ctx.sessions.revokeAll();
  ctx.log.warn({ revokedAt: new Date(at).toISOString() }, "every admin session revoked by the operator");
  if (isForm(c)) return new Response(null, { status: 303, headers: { location: "/admin", ...NO_STORE } });
  return jsonResponse(200, { revoked: true, revokedAt: new Date(at).toISOString() }, NO_STORE);
}

export function adminRoutes(deps: AdminDeps): Hono {
  const ctx: AdminContext = {
    ...deps,
    warmers: declaredWarmers(deps.families ?? []),
    signIns: deps.signIns ?? new SignInLimiter(),
    sessions: new AdminSessions(deps.store),
  };
  const app = new Hono();
  app.get("/", (c) => adminPageRoute(ctx, c));
  app.get("/stats", (c) => statsRoute(ctx, c));
  app.get("/ledger", (c) => ledgerRoute(ctx, c));
  app.post("/refunds/:id", (c) => refundRoute(ctx, c));
  app.post("/sessions/revoke", (c) => revokeSessionsRoute(ctx, c));
  app.post("/channels/refund", async (c) => {
    const refused = await refusal(ctx, c, true);
    if (refused) return refused;
    return channelRefund(c, isForm(c), ctx.channelRefunder?.(), (status, body) => htmlResponse(status, body));
  });
  return app;
}
