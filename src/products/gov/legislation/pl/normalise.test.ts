import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import {
  inForceOf,
  normaliseAct,
  normaliseSearch,
  parsePlId,
  type SejmAct,
  type SejmSearch,
} from "./normalise.ts";

const body = <T>(name: string): T => JSON.parse(recordedBody(name)) as T;

describe("Polish ids", () => {
  it("accepts the ELI, the ISAP address and the journal citation", () => {
    assert.deepEqual(parsePlId("DU/2018/1000"), { id: "DU/2018/1000" });
    assert.deepEqual(parsePlId("du/2018/1000"), { id: "DU/2018/1000" });
    assert.deepEqual(parsePlId("WDU20180001000"), { id: "DU/2018/1000" });
    assert.deepEqual(parsePlId("Dz.U. 1997 nr 133 poz. 883"), { id: "DU/1997/883" });
    assert.deepEqual(parsePlId("M.P. 2020 poz. 12"), { id: "MP/2020/12" });
    for (const bad of ["DU/2018", "XX/2018/1", "DU/18/1000", "DU/2018/0", "2018/1000"]) {
      assert.match((parsePlId(bad) as { error: string }).error, /DU\/2018\/1000/, bad);
    }
  });
});

describe("Sejm ELI → answers", () => {
  it("a search keeps the upstream's total and each act's status and dates", () => {
    const { totalCount, items } = normaliseSearch(body<SejmSearch>("pl-search-ochronie-danych"));
    assert.equal(totalCount, 2);
    assert.deepEqual(
      items.map((i) => [i.id, i.citation, i.inForce, i.status]),
      [
        ["DU/2018/1000", "Dz.U. 2018 poz. 1000", true, "obowiązujący"],
        ["DU/1997/883", "Dz.U. 1997 nr 133 poz. 883", false, "uchylony"],
      ],
    );
    assert.equal(items[1]?.dates.repealed, "2018-05-25");
    assert.equal(items[0]?.sourceUrl, "https://isap.sejm.gov.pl/isap.nsf/DocDetails.xsp?id=WDU20180001000");
    assert.equal(items[0]?.eli, "https://eli.gov.pl/eli/DU/2018/1000/ogl");
    assert.equal(items[0]?.keywords, null, "search results carry no keywords here");
  });

  it("one act carries its keywords and every date the API gives", () => {
    const act = normaliseAct(body<SejmAct>("pl-act-DU-2018-1000"));
    assert.deepEqual(act?.keywords, ["ochrona danych osobowych", "Prezes Urzędu Ochrony Danych Osobowych"]);
    assert.deepEqual(act?.dates, {
      adopted: "2018-05-10",
      published: "2018-05-24",
      entryIntoForce: "2018-05-25",
      validFrom: "2018-05-25",
      updated: "2024-06-03",
    });
  });

  it("a repealed act is not in force", () => {
    const act = normaliseAct(body<SejmAct>("pl-act-DU-1997-883"));
    assert.deepEqual([act?.inForce, act?.status, act?.dates.repealed], [false, "uchylony", "2018-05-25"]);
  });

  it("inForce follows the flag, then an unambiguous status, else null", () => {
    assert.equal(inForceOf({ inForce: "UNKNOWN", status: "obowiązujący" }), null);
    assert.equal(inForceOf({ status: "uznany za uchylony" }), false);
    assert.equal(inForceOf({ status: "akt posiada tekst jednolity" }), null);
  });
});
