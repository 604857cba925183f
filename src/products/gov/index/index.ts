// The gov index family: GET /v1/gov over every gov family's routes, and the gov tables they share.
import type { FamilyFactory } from "../../../catalog/product.ts";
import { type GovProduct, isGovProduct } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { govIndex } from "./gov-index.ts";

export function govIndexFamily(govFamilies: FamilyFactory[]): FamilyFactory {
  return (config) => {
    let routes: GovProduct[] | undefined;
    // Built on first use: the families are assembled once, from the same config as the served ones.
    const declared = () => {
      routes ??= govFamilies.flatMap((factory) => factory(config).products).filter(isGovProduct);
      return routes;
    };
    return { name: "gov", products: [govIndex(declared)], migrations: GOV_MIGRATIONS };
  };
}
