// Per facilitator: its last /supported answer (as the facilitator sent it, read back at start) and its health
// as a serving node last reported it (read by /admin and `npm run stats`).
import { Repository } from "./repository.ts";

export interface StoredSupported {
  facilitator: string;
  supported: unknown;
  readAt: string;
}

interface StoredFacilitatorStatus {
  facilitator: string;
  status: Record<string, unknown>;
  reportedAt: string;
}

export class FacilitatorStatusRepository extends Repository {
  saveSupported(facilitator: string, supported: unknown, now = new Date()): Promise<void> {
    return this.#upsert(facilitator, { supported: JSON.stringify(supported), read_at: now.toISOString() });
  }

  async allSupported(): Promise<StoredSupported[]> {
    const rows = await this.db
      .selectFrom("facilitator_status")
      .select(["facilitator", "supported", "read_at"])
      .where("supported", "is not", null)
      .execute();
    return rows.map((r) => ({
      facilitator: r.facilitator,
      supported: JSON.parse(r.supported as string),
      readAt: r.read_at as string,
    }));
  }

  report(facilitator: string, status: Record<string, unknown>, now = new Date()): Promise<void> {
    return this.#upsert(facilitator, { status: JSON.stringify(status), reported_at: now.toISOString() });
  }

  /** Writes some of a facilitator's columns, leaving the others as they are. */
  async #upsert(
    facilitator: string,
    row: { supported: string; read_at: string } | { status: string; reported_at: string },
  ): Promise<void> {
    await this.db
      .insertInto("facilitator_status")
      .values({ facilitator, ...row })
      .onConflict((oc) => oc.column("facilitator").doUpdateSet(row))
      .execute();
  }

  async reported(): Promise<StoredFacilitatorStatus[]> {
    const rows = await this.db
      .selectFrom("facilitator_status")
      .select(["facilitator", "status", "reported_at"])
      .where("status", "is not", null)
      .orderBy("facilitator")
      .execute();
    return rows.map((r) => ({
      facilitator: r.facilitator,
      status: JSON.parse(r.status as string),
      reportedAt: r.reported_at as string,
    }));
  }
}
