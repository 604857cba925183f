// The checks `npm run preflight` runs for RDAP: IANA's bootstrap file (without it no domain is routed: a
// blocker), and the /help of each registry the supplement routes to (RFC 9082 §3.1.6; one failing only affects
// its TLDs, so it is a warning).
import type { PreflightCheck } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { BOOTSTRAP_PATH, IANA_RDAP } from "./bootstrap.ts";
import { RDAP_SUPPLEMENT } from "./supplement.ts";
import { registrySpec } from "./upstream.ts";

export function rdapPreflight(): PreflightCheck[] {
  const registries = [...new Set(RDAP_SUPPLEMENT.entries.map((e) => e.baseUrl))];
  return [
    httpProbe(IANA_RDAP, { path: BOOTSTRAP_PATH, headers: { accept: "application/json" } }),
    ...registries.map((baseUrl): PreflightCheck => {
      const tlds = RDAP_SUPPLEMENT.entries.filter((e) => e.baseUrl === baseUrl).map((e) => `.${e.tld}`);
      const probe = httpProbe(
        registrySpec(baseUrl),
        { path: "/help", headers: { accept: "application/rdap+json" } },
        {
          fix: `Only ${tlds.join(", ")} are affected; check the registry's RDAP service or drop it from supplement.json.`,
        },
      );
      return {
        upstream: probe.upstream,
        async run(ctx) {
          const verdict = await probe.run(ctx);
          return verdict.state === "blocker" ? { ...verdict, state: "warn" } : verdict;
        },
      };
    }),
  ];
}
