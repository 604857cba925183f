// The one-off sale of the service's own domain. Only SALE_DOMAIN can be bought.
import { z } from "zod";
import { badRequest, type FamilyFactory, ok, product } from "../../catalog/product.ts";

const SALE_PRICE_USD = "50000";

const SaleAnswer = z.object({
  sku: z.literal("domain.sale"),
  domain: z.string(),
  priceUsdc: z.number().int(),
  status: z.literal("payment_received_transfer_pending"),
  transfer: z.literal("manual_or_escrow"),
  message: z.string(),
  contact: z.string(),
  generatedAt: z.string(),
});

export const domainFamily: FamilyFactory = (config) => {
  const saleDomain = config.saleDomain;
  if (!saleDomain) return { name: "domain", products: [] };
  const query = z.object({
    domain: z
      .string({ error: "is required: the domain on sale" })
      .trim()
      .toLowerCase()
      .max(253)
      .pipe(z.literal(saleDomain, { error: `must be ${saleDomain}, the only domain on sale` })),
  });
  return {
    name: "domain",
    products: [
      product({
        sku: "domain.sale",
        method: "GET",
        path: "/v1/domain/sale",
        summary: `Buy the domain ${saleDomain} with this service's API and data`,
        description: `One-off sale of ${saleDomain}. A settled payment records the sale; the transfer of domain, API and data is then arranged manually or by escrow.`,
        status: "live",
        tags: ["domain"],
        price: SALE_PRICE_USD,
        query,
        answer: SaleAnswer,
        example: { domain: saleDomain },
        async check(input) {
          return input.query.domain === saleDomain
            ? undefined
            : badRequest("domain", `domain: must be ${saleDomain}`);
        },
        async handle(_input, ctx) {
          const body = {
            sku: "domain.sale" as const,
            domain: saleDomain,
            priceUsdc: Number(SALE_PRICE_USD),
            status: "payment_received_transfer_pending" as const,
            transfer: "manual_or_escrow" as const,
            message: `Payment received for ${saleDomain}. The operator will contact you to arrange the transfer of the domain, API and data, manually or through escrow.`,
            contact: ctx.config.contact,
            generatedAt: new Date().toISOString(),
          };
          return ok(body, async (settlement) => {
            await ctx.store.sales.record({
              domain: saleDomain,
              priceUsdc: settlement.amount,
              payer: settlement.payer,
              network: settlement.network,
              transaction: settlement.transaction,
              status: body.status,
            });
          });
        },
      }),
    ],
  };
};
