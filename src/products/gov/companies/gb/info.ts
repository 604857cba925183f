// The UK route as GET /v1/gov lists it: upstream and licence.
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { LICENCES } from "../../shared/licences.ts";

export const GB_INFO: GovRouteInfo = {
  cc: "gb",
  country: "United Kingdom",
  family: "companies",
  upstream: "Companies House API",
  licence: {
    ...LICENCES.oglV3(
      "Contains public sector information licensed under the Open Government Licence v3.0 (Companies House)",
    ),
    notice:
      "Companies House data is Crown copyright; the API is used under its developer terms " +
      "(https://developer.company-information.service.gov.uk/).",
  },
  warmers: [],
};
