import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { recordedBody } from "../harness.test-helper.ts";
import { matchTitle } from "./neuris.ts";
import { indexEntries, parseDeId, slugOf } from "./normalise.ts";
import { parseToc } from "./upstream.ts";

const tocXml = (): string => recordedBody("de-gii-toc");

describe("GII table of contents", () => {
  it("parses every item, with entities and umlauts intact", () => {
    const items = parseToc(tocXml());
    assert.equal(items.length, 8);
    assert.equal(
      items[0]?.title,
      'Gesetz über die Ausprägung einer 1-DM-Goldmünze und die Errichtung der Stiftung "Geld und Währung"',
    );
    assert.ok(items.some((i) => i.title === "Straßenverkehrsgesetz"));
  });

  it("a one-item TOC is still a list (XML single-item collapse)", () => {
    const items = parseToc(
      "<items><item><title>Grundgesetz</title><link>http://www.gesetze-im-internet.de/gg/xml.zip</link></item></items>",
    );
    assert.deepEqual(items, [{ title: "Grundgesetz", link: "http://www.gesetze-im-internet.de/gg/xml.zip" }]);
  });

  it("a maintenance page served with 200 is refused", () => {
    assert.throws(() => parseToc("<html><body>Wartungsarbeiten</body></html>"), /no <items>/);
  });

  it("entries: the slug is the id and the normId, searchable besides the title; abbreviation unknown", () => {
    const entries = indexEntries(parseToc(tocXml()));
    const ao = entries.find((e) => e.id === "ao_1977");
    assert.equal(ao?.alt, "ao_1977 ao 1977");
    assert.deepEqual(ao?.body, {
      id: "ao_1977",
      title: "Abgabenordnung",
      type: null,
      citation: null,
      inForce: true,
      status: "in force (listed in GII's current table of contents)",
      dates: {},
      sourceUrl: "https://www.gesetze-im-internet.de/ao_1977/",
      eli: null,
      apiUrl: "https://www.gesetze-im-internet.de/ao_1977/xml.zip",
      normId: "ao_1977",
      abbreviation: null,
      titleDe: "Abgabenordnung",
    });
  });

  it("ids: GII slugs, case folded; other shapes refused", () => {
    assert.deepEqual(parseDeId("BGB"), { id: "bgb" });
    assert.deepEqual(parseDeId("1-dm-goldm_nzg"), { id: "1-dm-goldm_nzg" });
    assert.equal(slugOf("http://www.gesetze-im-internet.de/bgb/xml.zip"), "bgb");
    for (const bad of ["§ 1 BGB", "bgb/1", "", "a b"]) assert.ok("error" in parseDeId(bad), bad);
  });
});

describe("NeuRIS completion", () => {
  const search = JSON.parse(recordedBody("de-neuris-search-bdsg"));
  it("matches the hit whose name is the GII title, folded, and nothing else", () => {
    const match = matchTitle(search, "BUNDESDATENSCHUTZGESETZ", "https://x");
    assert.deepEqual(match, {
      abbreviation: "BDSG",
      eli: "eli/bund/bgbl-1/2017/s2097",
      adopted: "2017-06-30",
      published: "2017-07-05",
      inForce: true,
      url: "https://x",
    });
    assert.equal(matchTitle(search, "Datenschutz", "https://x"), undefined);
  });
});
