// Who may see the operator routes: the ADMIN_TOKEN as an `Authorization: Bearer` header (scripts), or the
// session cookie a browser got by opening /admin?token=… once (a link cannot carry a header). The cookie holds
// when it was issued and an HMAC keyed by the token, not the token: it expires after 12 hours, changing
// ADMIN_TOKEN invalidates every cookie, and POST /admin/sessions/revoke signs every browser out (sessions.ts).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { sha256 } from "../sha256.ts";

const ADMIN_COOKIE = "paycall_admin";
/** How long a browser stays signed in. */
export const ADMIN_COOKIE_MAX_AGE_SEC = 12 * 3600;

function sameSecret(given: string, expected: string): boolean {
  // Hashing first makes both sides the same length, so the comparison takes the same time for any input.
  return timingSafeEqual(Buffer.from(sha256(given)), Buffer.from(sha256(expected)));
}

function sessionMac(token: string, issuedAtMs: number): string {
  return createHmac("sha256", token).update(`paycall admin session v2|${issuedAtMs}`).digest("base64url");
}

/** A session cookie's value: when it was issued (epoch ms) and its HMAC. */
function sessionValue(token: string, issuedAtMs = Date.now()): string {
  return `${issuedAtMs}.${sessionMac(token, issuedAtMs)}`;
}

export function tokenMatches(given: string, token: string | undefined): boolean {
  return token !== undefined && sameSecret(given, token);
}

/** The `Authorization` header's credential: only the Bearer scheme is accepted. */
function bearerOf(c: Context): string | undefined {
  const header = c.req.header("authorization");
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+)$/i.exec(header);
  return match ? match[1] : "";
}

/** True when the request presents any credential (a header, a cookie or a token in the link). */
export function presentsCredential(c: Context): boolean {
  return (
    c.req.header("authorization") !== undefined ||
    getCookie(c, ADMIN_COOKIE) !== undefined ||
    new URL(c.req.url).searchParams.has("token")
  );
}

export function bearerAuthorised(c: Context, token: string | undefined): boolean {
  if (!token) return false;
  const given = bearerOf(c);
  return given !== undefined && given !== "" && sameSecret(given, token);
}

/** The cookie's session, when it is one of this token's, younger than 12 hours and issued after `revokedAtMs`. */
export function cookieAuthorised(
  c: Context,
  token: string | undefined,
  revokedAtMs = 0,
  now = Date.now(),
): boolean {
  if (!token) return false;
  const cookie = getCookie(c, ADMIN_COOKIE);
  const match = cookie === undefined ? null : /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  if (!sameSecret(match[2] as string, sessionMac(token, issuedAt))) return false;
  return (
    issuedAt > revokedAtMs && issuedAt <= now + 60_000 && now - issuedAt < ADMIN_COOKIE_MAX_AGE_SEC * 1000
  );
}

/**
 * A state-changing request on the cookie must come from a page of this service: its `Origin`, or failing that
 * its `Referer`, must be this service's. A request with neither is refused (SameSite=Strict keeps the cookie
 * off cross-site requests in browsers that honour it; this guards the others).
 */
export function sameOrigin(c: Context, publicUrl: string): boolean {
  const ours = [new URL(c.req.url).origin, new URL(publicUrl).origin];
  const origin = c.req.header("origin");
  if (origin !== undefined) return ours.includes(origin);
  const referer = c.req.header("referer");
  if (referer === undefined) return false;
  try {
    return ours.includes(new URL(referer).origin);
  } catch {
    return false;
  }
}

export function sessionCookie(token: string, publicUrl: string, issuedAtMs = Date.now()): string {
  const secure = publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${ADMIN_COOKIE}=${sessionValue(token, issuedAtMs)}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${ADMIN_COOKIE_MAX_AGE_SEC}${secure}`;
}
