// Slovakia: the company register (RPO) and the register of financial statements (RÚZ).
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { skAccountsRoute } from "./accounts.ts";
import { skCompaniesRoute } from "./companies.ts";

export const skCompanies: CountryModuleFactory = () => {
  const companies = skCompaniesRoute();
  const accounts = skAccountsRoute();
  return {
    cc: "sk",
    products: [companies.route, accounts.route],
    jobs: { ...companies.jobs, ...accounts.jobs },
  };
};
