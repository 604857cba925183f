// The Polish route as GET /v1/gov lists it: upstream and terms.
import type { GovRouteInfo } from "../../shared/gov-product.ts";

export const PL_INFO: GovRouteInfo = {
  cc: "pl",
  country: "Poland",
  family: "companies",
  upstream: "KRS open API, Krajowy Rejestr Sądowy (Ministry of Justice)",
  licence: {
    name: "Public information from the National Court Register (Act of 20 August 1997 on the KRS, art. 8)",
    url: "https://prs.ms.gov.pl/krs/openApi",
    attribution: "Źródło: Krajowy Rejestr Sądowy, Ministerstwo Sprawiedliwości (api-krs.ms.gov.pl)",
    notice:
      "The KRS publishes no licence text for its open API. Only an extract issued by the Central Information of " +
      "the KRS has the force of an official document.",
  },
  warmers: [],
};
