// The ECB check `npm run preflight` runs: the latest US dollar reference rate, one CSV row.
import type { PreflightCheck } from "../../catalog/product.ts";
import { httpProbe } from "../../preflight/probe.ts";
import { ECB_UPSTREAM } from "./upstream.ts";

export const ecbPreflight: PreflightCheck[] = [
  httpProbe(
    ECB_UPSTREAM,
    {
      path: "/service/data/EXR/D.USD.EUR.SP00.A",
      query: { format: "csvdata", lastNObservations: 1 },
      headers: { accept: "text/csv" },
    },
    { fix: "Check that data-api.ecb.europa.eu (or ECB_BASE_URL) is reachable." },
  ),
];
