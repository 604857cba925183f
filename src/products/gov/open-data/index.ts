// Open-data portal search for twelve countries (issue 13): one family, one route per national portal, one
// adapter per API family (adapters/), recordings in one folder.
import path from "node:path";
import { assembleGovFamily } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { OPEN_DATA_PORTALS } from "./portals.ts";
import { openDataModule } from "./route.ts";

export const OPEN_DATA_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const govOpenDataFamily = assembleGovFamily(
  "gov-open-data",
  OPEN_DATA_PORTALS.map(({ portal, adapter }) => openDataModule(portal, adapter)),
  OPEN_DATA_RECORDINGS_DIR,
  GOV_MIGRATIONS,
);
