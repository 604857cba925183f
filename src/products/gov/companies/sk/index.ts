// Slovakia: the company register (RPO) and the register of financial statements (RÚZ), with the daily
// change-feed warmers that refresh what we hold of both.
import type { CountryModuleFactory } from "../../shared/gov-product.ts";
import { skAccountsRoute } from "./accounts.ts";
import { skChangeFeedWarmers } from "./change-feeds.ts";
import { skCompaniesRoute } from "./companies.ts";

export const skCompanies: CountryModuleFactory = () => {
  const companies = skCompaniesRoute();
  const accounts = skAccountsRoute();
  return {
    cc: "sk",
    products: [companies.route, accounts.route],
    warmers: skChangeFeedWarmers(),
    jobs: { ...companies.jobs, ...accounts.jobs },
  };
};
