// The x402 doctor: checkup, blocked, test-buy, payment diagnosis, reports, seller check and verify tokens.
// Every user-supplied URL goes through the SSRF-safe fetcher in fetcher/.
import type { Family, FamilyFactory } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";
import { buyProduct } from "./buy/buy.ts";
import { blockedProduct } from "./checkup/blocked.ts";
import { checkupProduct } from "./checkup/checkup.ts";
import { paymentProducts } from "./diagnosis/payment.ts";
import { unknownReasonReview } from "./diagnosis/review.ts";
import { doctorMigrations } from "./migrations.ts";
import { sellerProduct } from "./ownership/seller.ts";
import { verifyProduct } from "./ownership/verify.ts";
import { reportProduct } from "./reports/report.ts";
import { createRuntime, type DoctorRuntime, type RuntimeOptions } from "./runtime.ts";
import { doctorStatusProduct } from "./status.ts";

export function createDoctorFamily(
  config: Config,
  options: RuntimeOptions = {},
): { family: Family; runtime: DoctorRuntime } {
  const runtime = createRuntime(config, options);
  const family: Family = {
    name: "doctor",
    products: [
      checkupProduct(runtime),
      blockedProduct(runtime),
      buyProduct(runtime),
      ...paymentProducts(runtime),
      reportProduct,
      sellerProduct(runtime),
      verifyProduct(runtime),
      doctorStatusProduct(runtime),
    ],
    warmers: [unknownReasonReview],
    migrations: doctorMigrations,
  };
  return { family, runtime };
}

export const doctorFamily: FamilyFactory = (config) => createDoctorFamily(config).family;
