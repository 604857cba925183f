// The checks `npm run preflight` runs for the company registers: one cheap request to each upstream (for the
// bulk files of Brazil and Canada the share's page and a HEAD of the archive, never a download), and the
// Companies House key (without it only the UK route is off; the preflight warns rather than blocks).
import type { PreflightCheck, PreflightContext, PreflightVerdict } from "../../../catalog/product.ts";
import { type Config, upstreamBaseUrl } from "../../../config.ts";
import { errorText } from "../../../json.ts";
import { httpProbe } from "../../../preflight/probe.ts";
import { BR_SHARE_TOKEN, BR_SPEC } from "./br/upstream.ts";
import { CA_ARCHIVE_PATH, CA_DEFAULT_BASE, CA_UPSTREAM_NAME } from "./ca/upstream.ts";
import { chPreflight } from "./ch/preflight.ts";
import { CZ_UPSTREAM } from "./cz/upstream.ts";
import { FR_UPSTREAM } from "./fr/upstream.ts";
import { CH_KEY_SETTING, companiesHouseKey, GB_UPSTREAM } from "./gb/upstream.ts";
import { plPreflight } from "./pl/preflight.ts";
import { RPO_UPSTREAM } from "./sk/rpo-upstream.ts";
import { RUZ_UPSTREAM } from "./sk/ruz-upstream.ts";

/** A HEAD of a large file: reachable and present, without downloading it. */
function headProbe(upstream: string, defaultBaseUrl: string, path: string, fix: string): PreflightCheck {
  return {
    upstream,
    async run(ctx: PreflightContext): Promise<PreflightVerdict> {
      const url = `${upstreamBaseUrl(ctx.config, upstream, defaultBaseUrl).replace(/\/+$/, "")}${path}`;
      try {
        const response = await (ctx.fetchImpl ?? fetch)(url, {
          method: "HEAD",
          headers: { "user-agent": ctx.userAgent },
          redirect: "follow",
          signal: AbortSignal.timeout(ctx.timeoutMs),
        });
        await response.body?.cancel();
        if (response.ok) {
          const size = Number(response.headers.get("content-length"));
          const shown = Number.isFinite(size) && size > 0 ? `, ${(size / 1e6).toFixed(0)} MB` : "";
          return { state: "ok", detail: `HTTP ${response.status} from HEAD ${url}${shown}` };
        }
        return { state: "blocker", detail: `HTTP ${response.status} from HEAD ${url}`, fix };
      } catch (error) {
        return {
          state: "blocker",
          detail: `no answer from HEAD ${url}: ${errorText(error)}`,
          fix,
        };
      }
    },
  };
}

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
    httpProbe(
      BR_SPEC,
      { path: `/index.php/s/${BR_SHARE_TOKEN}`, headers: { accept: "text/html" } },
      {
        fix: `Receita Federal's share ${BR_SHARE_TOKEN} should open; if it moved, set GOV_BR_RECEITA_CNPJ_BASE_URL (and check the share token in br/upstream.ts).`,
      },
    ),
    headProbe(
      CA_UPSTREAM_NAME,
      CA_DEFAULT_BASE,
      CA_ARCHIVE_PATH,
      "Corporations Canada's OPEN_DATA_SPLIT.zip should be there; check GOV_CA_CORPORATIONS_BASE_URL.",
    ),
  ];
}
