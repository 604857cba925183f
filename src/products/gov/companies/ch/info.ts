// The Swiss route as GET /v1/gov lists it: upstream and licence (as the Zefix OpenAPI states it).
import type { GovRouteInfo } from "../../shared/gov-product.ts";

export const CH_INFO: GovRouteInfo = {
  cc: "ch",
  country: "Switzerland",
  family: "companies",
  upstream: "Zefix PublicREST, central business name index (Federal Office of Justice)",
  licence: {
    name: "OGD Open use. Must provide the source (opendata.swiss terms of use, BY)",
    url: "https://opendata.swiss/en/terms-of-use#terms_by",
    attribution: "Source: Zefix, central business name index, Federal Office of Justice (FOJ)",
    notice:
      "Only the cantonal commercial registers' excerpts and the SOGC publications have legal effect; Zefix " +
      "is an index of them.",
  },
  warmers: [],
};
