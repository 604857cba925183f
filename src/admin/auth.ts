// Who may see the operator routes: the ADMIN_TOKEN as a Bearer header (scripts), or the session cookie a
// browser got by opening /admin?token=… once (a link cannot carry a header). The cookie holds a value
// derived from the token, not the token, and changing ADMIN_TOKEN invalidates every cookie.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { sha256 } from "../sha256.ts";

export const ADMIN_COOKIE = "paycall_admin";
/** How long a browser stays signed in. */
export const ADMIN_COOKIE_MAX_AGE_SEC = 12 * 3600;

function sameSecret(given: string, expected: string): boolean {
  // Hashing first makes both sides the same length, so the comparison takes the same time for any input.
  return timingSafeEqual(Buffer.from(sha256(given)), Buffer.from(sha256(expected)));
}

export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("paycall admin session v1").digest("base64url");
}

export function tokenMatches(given: string, token: string | undefined): boolean {
  return token !== undefined && sameSecret(given, token);
}

export function bearerAuthorised(c: Context, token: string | undefined): boolean {
  if (!token) return false;
  const given = c.req.header("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
  return sameSecret(given, token);
}

export function cookieAuthorised(c: Context, token: string | undefined): boolean {
  if (!token) return false;
  const cookie = getCookie(c, ADMIN_COOKIE);
  return cookie !== undefined && sameSecret(cookie, sessionValue(token));
}

/**
 * A state-changing request on the cookie must come from a page of this service: SameSite=Strict already
 * keeps the cookie off cross-site requests; the Origin check guards browsers that ignore it.
 */
export function sameOrigin(c: Context, publicUrl: string): boolean {
  const origin = c.req.header("origin");
  if (!origin) return true;
  return origin === new URL(c.req.url).origin || origin === new URL(publicUrl).origin;
}

export function sessionCookie(token: string, publicUrl: string): string {
  const secure = publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${ADMIN_COOKIE}=${sessionValue(token)}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${ADMIN_COOKIE_MAX_AGE_SEC}${secure}`;
}
