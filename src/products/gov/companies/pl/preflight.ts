// `npm run preflight` for the KRS: one current extract (small, unlike the full one), and a maintenance page
// served with HTTP 200 is reported as what it is.
import type { PreflightCheck } from "../../../../catalog/product.ts";
import { httpProbe, judgeStatus } from "../../../../preflight/probe.ts";
import { KRS_UPSTREAM } from "./upstream.ts";

export function plPreflight(): PreflightCheck {
  return httpProbe(
    KRS_UPSTREAM,
    { path: "/OdpisAktualny/0000019193", query: { rejestr: "P", format: "json" } },
    {
      judge: (response, fix) =>
        /html/i.test(response.headers.get("content-type") ?? "")
          ? {
              state: "warn",
              detail: `the KRS answers its maintenance page (HTTP ${response.status})`,
              fix: "Try again later.",
            }
          : judgeStatus(response, fix),
    },
  );
}
