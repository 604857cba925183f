// Domain-sale records: written only after the buyer's payment settled.
import type { Selectable } from "kysely";
import { Repository } from "./repository.ts";
import type { SaleTable } from "./schema.ts";

export class SaleRepository extends Repository {
  async record(sale: {
    domain: string;
    priceUsdc: string;
    payer: string | null;
    network: string;
    transaction: string | null;
    status: string;
  }) {
    await this.db
      .insertInto("sales")
      .values({
        domain: sale.domain,
        price_usdc: sale.priceUsdc,
        payer: sale.payer,
        network: sale.network,
        transaction: sale.transaction,
        status: sale.status,
        created_at: new Date().toISOString(),
      })
      .execute();
  }

  async list(): Promise<Array<Selectable<SaleTable>>> {
    return this.db.selectFrom("sales").selectAll().orderBy("id").execute();
  }
}
