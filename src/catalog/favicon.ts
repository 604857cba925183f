// The service's icon: indexers look for a favicon at the origin and show it beside the listing; the Bazaar's
// `resource.iconUrl` points at it.
import { CORS_HEADERS } from "../responses.ts";

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
  '<rect width="64" height="64" rx="14" fill="#1f4e79"/>' +
  '<text x="32" y="44" font-family="Arial,Helvetica,sans-serif" font-size="34" font-weight="700" ' +
  'text-anchor="middle" fill="#ffffff">$</text></svg>';

/** SVG under the names clients probe: browsers and scrapers accept SVG content at /favicon.ico. */
export const FAVICON_PATHS = ["/favicon.svg", "/favicon.ico"] as const;
export const ICON_PATH = "/favicon.svg";

export const SVG_HEADERS = {
  "content-type": "image/svg+xml",
  "cache-control": "public, max-age=86400",
  ...CORS_HEADERS,
  "x-content-type-options": "nosniff",
} as const;

export const TEXT_HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "cache-control": "public, max-age=300",
  ...CORS_HEADERS,
  "x-content-type-options": "nosniff",
} as const;
