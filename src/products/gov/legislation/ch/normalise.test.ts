import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import type { SparqlBinding } from "../sparql.ts";
import { actOf, chooseAct, groupRows, parseChId } from "./normalise.ts";

const rows = (name: string) =>
  (JSON.parse(recordedBody(name)) as { results: { bindings: SparqlBinding[] } }).results.bindings;

describe("ch normalise", () => {
  it("parses SR numbers and ELIs in their forms and refuses other shapes", () => {
    assert.deepEqual(parseChId("235.1"), { id: "235.1" });
    assert.deepEqual(parseChId("SR 0.101"), { id: "0.101" });
    assert.deepEqual(parseChId("eli/cc/2022/491"), { id: "eli/cc/2022/491" });
    assert.deepEqual(parseChId("https://www.fedlex.admin.ch/eli/cc/24/233_245_233/de"), {
      id: "eli/cc/24/233_245_233",
    });
    assert.deepEqual(parseChId("https://fedlex.data.admin.ch/eli/cc/2022/491"), { id: "eli/cc/2022/491" });
    for (const bad of ["DSG", "eli/oc/2022/491", "235.1.", "1234.5", "eli/cc/x/1"])
      assert.ok("error" in parseChId(bad), bad);
  });

  it("an act: German title, short title, French and Italian aliases, SR citation, status and dates", () => {
    const act = actOf(rows("ch-act-eli-2022-491"));
    assert.ok(act);
    assert.deepEqual(
      [act.id, act.title, act.shortTitle, act.srNumber, act.citation, act.inForce, act.status, act.type],
      [
        "eli/cc/2022/491",
        "Bundesgesetz über den Datenschutz",
        "DSG",
        "235.1",
        "SR 235.1",
        true,
        "in force",
        "Bundesgesetz",
      ],
    );
    assert.deepEqual(act.aliases, [
      "Loi fédérale sur la protection des données",
      "LPD",
      "Legge federale sulla protezione dei dati",
    ]);
    assert.deepEqual(act.dates, { adopted: "2020-09-25", entryIntoForce: "2023-09-01" });
    assert.equal(act.eli, "https://fedlex.data.admin.ch/eli/cc/2022/491");
    assert.equal(act.sourceUrl, "https://www.fedlex.admin.ch/eli/cc/2022/491/de");
  });

  it("a reused SR number names the act in force; the repealed one is inForce false with its end date", () => {
    const chosen = chooseAct(rows("ch-act-sr-730.0"));
    assert.deepEqual([chosen?.act.id, chosen?.others], ["eli/cc/2017/762", ["eli/cc/1999/27"]]);
    const old = actOf(rows("ch-act-eli-1999-27"));
    assert.deepEqual(
      [old?.inForce, old?.status, old?.dates.repealed],
      [false, "no longer in force", "2017-12-31"],
    );
  });

  it("an invented ELI has no rows, so no act; the index page groups rows by act", () => {
    assert.equal(chooseAct(rows("ch-act-eli-unknown")), undefined);
    assert.equal(groupRows(rows("ch-index-page-1")).size, 5);
  });
});
