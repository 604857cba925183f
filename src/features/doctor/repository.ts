// Reads and writes of the doctor's tables: reports (kept for good), verify tokens, unknown failure reasons.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { FamilyStore } from "../../catalog/family-context.ts";
import { sha256 } from "../../sha256.ts";
import type {
  DoctorReportTable,
  DoctorTables,
  DoctorUnknownReasonTable,
  DoctorVerifyTokenTable,
} from "./tables.ts";

export function doctorDb(store: FamilyStore): Kysely<DoctorTables> {
  return store.tables.of<DoctorTables>();
}

/** dr_ followed by 32 hex characters (128 random bits). */
export function newReportId(): string {
  return `dr_${randomBytes(16).toString("hex")}`;
}

export const REPORT_ID = /^dr_[0-9a-f]{32}$/;

export async function saveReport(
  store: FamilyStore,
  report: {
    id: string;
    sku: string;
    payer: string;
    body: string;
    network: string;
    transaction: string | null;
    amount: string;
    receipt?: string;
  },
): Promise<void> {
  await doctorDb(store)
    .insertInto("doctor_reports")
    .values({
      ...report,
      receipt: report.receipt ?? null,
      payer: report.payer.toLowerCase(),
      body_sha256: sha256(report.body),
      created_at: new Date().toISOString(),
    })
    .execute();
}

export async function findReport(store: FamilyStore, id: string): Promise<DoctorReportTable | undefined> {
  return doctorDb(store).selectFrom("doctor_reports").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function issueToken(
  store: FamilyStore,
  token: { host: string; wallet: string; ttlMs: number },
): Promise<DoctorVerifyTokenTable> {
  const now = new Date();
  const row: DoctorVerifyTokenTable = {
    token: `x402-doctor-verify=${randomBytes(16).toString("hex")}`,
    host: token.host.toLowerCase(),
    wallet: token.wallet.toLowerCase(),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + token.ttlMs).toISOString(),
  };
  await doctorDb(store).insertInto("doctor_verify_tokens").values(row).execute();
  return row;
}

/** The live tokens issued for a host, newest first. */
export async function tokensForHost(
  store: FamilyStore,
  host: string,
  now = new Date(),
): Promise<DoctorVerifyTokenTable[]> {
  return doctorDb(store)
    .selectFrom("doctor_verify_tokens")
    .selectAll()
    .where("host", "=", host.toLowerCase())
    .where("expires_at", ">", now.toISOString())
    .orderBy("created_at", "desc")
    .limit(50)
    .execute();
}

/** Counts one more sighting of a failure reason the catalogue does not know. */
export async function keepUnknownReason(store: FamilyStore, reason: string, response: string): Promise<void> {
  const now = new Date().toISOString();
  await doctorDb(store)
    .insertInto("doctor_unknown_reasons")
    .values({
      reason,
      first_seen_at: now,
      last_seen_at: now,
      seen_count: 1,
      sample_response: response.slice(0, 2000),
      reviewed_at: null,
      resolved_code: null,
    })
    .onConflict((oc) =>
      oc.column("reason").doUpdateSet((eb) => ({
        last_seen_at: now,
        seen_count: eb("doctor_unknown_reasons.seen_count", "+", 1),
        reviewed_at: null,
      })),
    )
    .execute();
}

export async function unreviewedReasons(
  store: FamilyStore,
  limit = 500,
): Promise<DoctorUnknownReasonTable[]> {
  return doctorDb(store)
    .selectFrom("doctor_unknown_reasons")
    .selectAll()
    .where("reviewed_at", "is", null)
    .orderBy("seen_count", "desc")
    .limit(limit)
    .execute();
}

export async function markReviewed(
  store: FamilyStore,
  reason: string,
  resolvedCode: string | null,
): Promise<void> {
  await doctorDb(store)
    .updateTable("doctor_unknown_reasons")
    .set({ reviewed_at: new Date().toISOString(), resolved_code: resolvedCode })
    .where("reason", "=", reason)
    .execute();
}

export async function doctorCounts(store: FamilyStore): Promise<{
  reports: number;
  liveTokens: number;
  unknownReasons: number;
  unknownPendingReview: number;
}> {
  const db = doctorDb(store);
  const count = async (query: Promise<{ n: string | number | bigint } | undefined>) =>
    Number((await query)?.n ?? 0);
  const now = new Date().toISOString();
  const [reports, liveTokens, unknownReasons, unknownPendingReview] = await Promise.all([
    count(
      db
        .selectFrom("doctor_reports")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirst(),
    ),
    count(
      db
        .selectFrom("doctor_verify_tokens")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("expires_at", ">", now)
        .executeTakeFirst(),
    ),
    count(
      db
        .selectFrom("doctor_unknown_reasons")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("resolved_code", "is", null)
        .executeTakeFirst(),
    ),
    count(
      db
        .selectFrom("doctor_unknown_reasons")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("reviewed_at", "is", null)
        .executeTakeFirst(),
    ),
  ]);
  return { reports, liveTokens, unknownReasons, unknownPendingReview };
}
