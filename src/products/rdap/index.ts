// The RDAP family: domain registration records from each TLD registry's RDAP server, routed by IANA's bootstrap
// file (refreshed daily) and then the supplement of registries it omits, cached a day, fetched live on a miss,
// with each registry's 429s honoured.
import path from "node:path";
import type { FamilyFactory } from "../../catalog/product.ts";
import { rdapBootstrapWarmer } from "./bootstrap.ts";
import { rdapDomain } from "./domain-product.ts";
import { rdapPreflight } from "./preflight.ts";
import { rdapStatus } from "./status.ts";

export const RDAP_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const rdapFamily: FamilyFactory = () => ({
  name: "rdap",
  preflight: rdapPreflight(),
  products: [rdapDomain(), rdapStatus],
  warmers: [rdapBootstrapWarmer],
  recordingsDir: RDAP_RECORDINGS_DIR,
});
