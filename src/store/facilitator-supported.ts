// Each facilitator's last /supported answer (kept as the facilitator sent it), read back at start.
import { Repository } from "./repository.ts";

export interface StoredSupported {
  facilitator: string;
  supported: unknown;
  readAt: string;
}

export class FacilitatorSupportedRepository extends Repository {
  async save(facilitator: string, supported: unknown, now = new Date()): Promise<void> {
    const row = { supported: JSON.stringify(supported), read_at: now.toISOString() };
    await this.db
      .insertInto("facilitator_supported")
      .values({ facilitator, ...row })
      .onConflict((oc) => oc.column("facilitator").doUpdateSet(row))
      .execute();
  }

  async all(): Promise<StoredSupported[]> {
    const rows = await this.db.selectFrom("facilitator_supported").selectAll().execute();
    return rows.map((r) => ({ facilitator: r.facilitator, supported: JSON.parse(r.supported), readAt: r.read_at }));
  }
}
