// The check `npm run preflight` runs for OFAC: the smaller export (CONSOLIDATED.XML) asked conditionally with
// If-Modified-Since now, so the redirect to the signed S3 URL is followed and answered 304 without a download.
import type { PreflightCheck } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { LIST_FILES, OFAC_UPSTREAM } from "./upstream.ts";

export function ofacPreflight(): PreflightCheck[] {
  return [
    httpProbe(
      OFAC_UPSTREAM,
      {
        path: LIST_FILES.CONSOLIDATED,
        headers: { accept: "application/xml, text/xml" },
        lastModified: new Date().toUTCString(),
      },
      {
        fix: "Check that sanctionslistservice.ofac.treas.gov and its S3 redirect (or OFAC_BASE_URL) are reachable.",
      },
    ),
  ];
}
