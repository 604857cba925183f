// Open-data portal search for twelve countries: one family, one route per national portal, one
// adapter per API family (adapters/), recordings in one folder, one preflight probe per portal (preflight.ts).
import path from "node:path";
import type { FamilyFactory } from "../../../catalog/product.ts";
import { assembleGovFamily } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { OPEN_DATA_PORTALS } from "./portals.ts";
import { openDataPreflight } from "./preflight.ts";
import { openDataModule } from "./route.ts";

export const OPEN_DATA_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

const assembled = assembleGovFamily(
  "gov-open-data",
  OPEN_DATA_PORTALS.map(({ portal, adapter }) => openDataModule(portal, adapter)),
  OPEN_DATA_RECORDINGS_DIR,
  GOV_MIGRATIONS,
);

export const govOpenDataFamily: FamilyFactory = (config) => ({
  ...assembled(config),
  preflight: openDataPreflight(config),
});
