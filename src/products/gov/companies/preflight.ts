// The checks `npm run preflight` runs for the company registers: one cheap request to each upstream, and the
// Companies House key (without it only the UK route is off; the preflight warns rather than blocks).
import type { PreflightCheck } from "../../../catalog/product.ts";
import type { Config } from "../../../config.ts";
import { httpProbe } from "../../../preflight/probe.ts";
import { chPreflight } from "./ch/preflight.ts";
import { CZ_UPSTREAM } from "./cz/upstream.ts";
import { FR_UPSTREAM } from "./fr/upstream.ts";
import { CH_KEY_SETTING, companiesHouseKey, GB_UPSTREAM } from "./gb/upstream.ts";
import { plPreflight } from "./pl/preflight.ts";
import { RPO_UPSTREAM } from "./sk/rpo-upstream.ts";
import { RUZ_UPSTREAM } from "./sk/ruz-upstream.ts";

export function companiesPreflight(config: Config): PreflightCheck[] {
  const key = companiesHouseKey(config.env);
  const gb: PreflightCheck = key
    ? httpProbe(
        GB_UPSTREAM,
        {
          path: "/company/00445790",
          headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` },
        },
        { fix: `Check ${CH_KEY_SETTING} (Companies House answers 401 to a key it does not know).` },
      )
    : {
        upstream: GB_UPSTREAM.name,
        run: async () => ({
          state: "warn",
          detail: `${CH_KEY_SETTING} is not set: /v1/gov/gb/companies answers 503 not_configured`,
          fix: `Register a free key at https://developer.company-information.service.gov.uk/ and set ${CH_KEY_SETTING}.`,
        }),
      };
  return [
    httpProbe(FR_UPSTREAM, { path: "/search", query: { q: "356000000", page: 1, per_page: 1 } }),
    httpProbe(CZ_UPSTREAM, { path: "/ekonomicke-subjekty/27082440" }),
    gb,
    httpProbe(RPO_UPSTREAM, { path: "/search", query: { identifier: "36421928" } }),
    httpProbe(RUZ_UPSTREAM, {
      path: "/uctovne-jednotky",
      query: { "zmenene-od": "2000-01-01", ico: "46792511" },
    }),
    plPreflight(),
    chPreflight(config),
  ];
}
