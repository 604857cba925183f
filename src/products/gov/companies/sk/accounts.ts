// Slovakia: GET /v1/gov/sk/accounts — `id` an IČO of 6 to 8 digits (required); 0.01 USD (RÚZ).
import { z } from "zod";
import { hasControlCharacters } from "../../../../catalog/text-guard.ts";
import type { GovRouteInfo } from "../../shared/gov-product.ts";
import { accountsAnswer } from "../answers.ts";
import { parseSkIco } from "../identifiers.ts";
import { companyRoute } from "../register.ts";
import { AccountsShape } from "./ruz-normalise.ts";
import { lookupSkAccounts } from "./ruz-upstream.ts";

export const SK_ACCOUNTS_INFO: GovRouteInfo = {
  cc: "sk",
  country: "Slovakia",
  family: "accounts",
  upstream: "RÚZ, Register účtovných závierok (Ministry of Finance of the Slovak Republic)",
  licence: {
    name: "Open data of the public administration (Register účtovných závierok, Act 431/2002 Coll. §23)",
    url: "https://www.registeruz.sk/cruz-public/home/api",
    attribution: "Zdroj: Register účtovných závierok (RÚZ), Ministerstvo financií Slovenskej republiky",
    notice:
      "The terms of reuse are in the licence section of RÚZ's API documentation " +
      "(https://www.registeruz.sk/cruz-public/home/api); the figures are as filed by the company and are not " +
      "audited by RÚZ.",
  },
  warmers: [],
};

const AccountsQuery = z.object({
  id: z
    .string({ error: "id is required: the company's IČO, 6 to 8 digits" })
    .refine((value) => !hasControlCharacters(value), { message: "id must not contain control characters" })
    .transform((raw, ctx) => {
      const parsed = parseSkIco(raw.trim());
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.id;
    })
    .describe("The company's IČO, 6 to 8 digits"),
});

export const skAccountsRoute = () =>
  companyRoute({
    info: SK_ACCOUNTS_INFO,
    upstreamUrl: "https://www.registeruz.sk/cruz-public/home/api",
    path: "/v1/gov/sk/accounts",
    price: "0.01",
    summary: "Slovak annual accounts by IČO (RÚZ): statements, latest figures in euros, documents",
    description:
      "One company's filed financial statements from RÚZ, Slovakia's register of financial statements: up to " +
      "20 of its statements (periods, type, filing and approval dates), the latest statement's figures in euros " +
      "with the prior year — every balance-sheet and income-statement line mapped through RÚZ's statement " +
      "templates, plus total assets, equity, liabilities and net result — or a note saying why there are none " +
      "(filed as documents only, not public), and the documents of the latest two statements. A company not " +
      "cached yet answers 404 (not charged) and is fetched within about a minute.",
    query: AccountsQuery,
    sample: { id: "46792511" },
    answer: accountsAnswer(AccountsShape),
    pick: (query: { id: string }) => ({ id: query.id }),
    parseId: (raw) => parseSkIco(raw),
    what: (id) => `The accounts of IČO ${id} in RÚZ`,
    lookup: lookupSkAccounts,
  });
