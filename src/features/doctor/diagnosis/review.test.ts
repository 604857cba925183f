// The nightly review: reasons the catalogue learned since are resolved, the others stay open for a person.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openFamilyContext, runWarmerRecorded } from "../../../../test/family-harness.ts";
import { doctorFamily } from "../index.ts";
import { doctorDb, keepUnknownReason } from "../repository.ts";
import { unknownReasonReview } from "./review.ts";

test("reviewing kept reasons resolves the ones the catalogue now knows", async () => {
  const ctx = await openFamilyContext(doctorFamily);
  try {
    await keepUnknownReason(
      ctx.store,
      "invalid_exact_evm_signature",
      '{"invalidReason":"invalid_exact_evm_signature"}',
    );
    await keepUnknownReason(ctx.store, "frobnicated_payment", '{"invalidReason":"frobnicated_payment"}');
    await keepUnknownReason(ctx.store, "frobnicated_payment", '{"invalidReason":"frobnicated_payment"}');
    const counts = await runWarmerRecorded(unknownReasonReview, ctx);
    assert.deepEqual(counts, { reviewed: 2, resolved: 1, stillUnknown: 1 });
    const rows = await doctorDb(ctx.store)
      .selectFrom("doctor_unknown_reasons")
      .selectAll()
      .orderBy("reason")
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.reason, r.seen_count, r.resolved_code, r.reviewed_at !== null]),
      [
        ["frobnicated_payment", 2, null, true],
        ["invalid_exact_evm_signature", 1, "signature_invalid", true],
      ],
    );
    assert.deepEqual(await runWarmerRecorded(unknownReasonReview, ctx), {
      reviewed: 0,
      resolved: 0,
      stillUnknown: 0,
    });
    await keepUnknownReason(ctx.store, "frobnicated_payment", "again");
    assert.equal(
      (await runWarmerRecorded(unknownReasonReview, ctx)).reviewed,
      1,
      "a new sighting is reviewed again",
    );
  } finally {
    await ctx.close();
  }
});
