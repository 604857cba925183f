import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseBootstrap, registryFor } from "./bootstrap.ts";
import { parseDomain } from "./domain.ts";
import { recordedBody } from "./harness.ts";
import { normaliseDomain, RdapShapeError, rdapErrorOf, termsNotice } from "./normalise.ts";

describe("RDAP domain names", () => {
  it("normalises to the A-label, lower case, without a trailing dot", () => {
    assert.deepEqual(parseDomain("Example.COM."), {
      ascii: "example.com",
      unicode: null,
      labels: ["example", "com"],
    });
    const idn = parseDomain("München.de");
    assert.ok(!("error" in idn));
    assert.equal(idn.ascii, "xn--mnchen-3ya.de");
    assert.equal(idn.unicode, "münchen.de");
    assert.equal((parseDomain("xn--mnchen-3ya.de") as { unicode: string }).unicode, "münchen.de");
  });

  it("refuses what is not a registrable domain name", () => {
    for (const bad of [
      "",
      "com",
      "https://example.com",
      "user@example.com",
      "exa mple.com",
      "-bad.com",
      "a..com",
      "1.2.3.4",
      `${"a".repeat(64)}.com`,
      "a_b.com",
    ]) {
      assert.ok("error" in parseDomain(bad), bad);
    }
  });
});

describe("IANA bootstrap", () => {
  const bootstrap = parseBootstrap(recordedBody("bootstrap-dns"));

  it("maps every listed TLD to its base URLs", () => {
    assert.equal(bootstrap.publication, "2025-07-21T19:00:01Z");
    assert.deepEqual(bootstrap.services.net, ["https://rdap.verisign.com/com/v1/"]);
    assert.equal(Object.keys(bootstrap.services).length, 8);
  });

  it("routes by the longest listed suffix, https preferred, base ending in /", () => {
    assert.deepEqual(registryFor(bootstrap, ["www", "example", "com"]), {
      suffix: "com",
      baseUrl: "https://rdap.verisign.com/com/v1/",
    });
    const custom = {
      publication: null,
      services: { "co.uk": ["http://a.example/rdap", "https://b.example/rdap"], uk: ["https://c.example/"] },
    };
    assert.deepEqual(registryFor(custom, ["shop", "co", "uk"]), {
      suffix: "co.uk",
      baseUrl: "https://b.example/rdap/",
    });
    assert.equal(registryFor(bootstrap, ["example", "zz"]), undefined);
  });
});

describe("RDAP domain normaliser", () => {
  it("a thin registry answer: registrar, referral, status, events, DNSSEC, terms", () => {
    const d = normaliseDomain(recordedBody("verisign-example-com"));
    assert.equal(d.ldhName, "example.com");
    assert.deepEqual(d.registrar, {
      name: "RESERVED-Internet Assigned Numbers Authority",
      ianaId: "376",
      handle: "376",
      url: null,
      abuseEmail: "abuse@iana.org",
      abusePhone: "+1.3108239358",
    });
    assert.equal(d.referralUrl, "https://rdap.iana.org/domain/EXAMPLE.COM");
    assert.deepEqual(d.nameservers, ["a.iana-servers.net", "b.iana-servers.net"]);
    assert.equal(d.delegationSigned, true);
    assert.equal(d.dsRecords[0]?.keyTag, 370);
    assert.equal(d.contacts.length, 0);
    assert.equal(termsNotice(d.notices)?.title, "Terms of Service");
    assert.match(termsNotice(d.notices)?.links[0] ?? "", /verisign\.com/);
  });

  it("a thick registry answer with redacted contacts (RFC 9537)", () => {
    const d = normaliseDomain(recordedBody("pir-redacted-org"));
    const registrant = d.contacts.find((c) => c.roles.includes("registrant"));
    assert.equal(registrant?.redacted, true);
    assert.equal(registrant?.name, null);
    const technical = d.contacts.find((c) => c.roles.includes("technical"));
    assert.equal(technical?.redacted, true);
    assert.equal(technical?.organization, "Sample Hosting Inc.");
    assert.deepEqual(d.redactions, [
      { field: "Registrant Name", method: "emptyValue", reason: "Server policy" },
      { field: "Registrant Email", method: "removal", reason: "Server policy" },
      { field: "Tech Name", method: "emptyValue", reason: null },
    ]);
    assert.equal(d.registrar?.url, "https://registrar.example");
    assert.equal(d.delegationSigned, false);
  });

  it("an IDN keeps its unicodeName; errors and non-domains", () => {
    assert.equal(normaliseDomain(recordedBody("denic-idn")).unicodeName, "münchen.de");
    assert.equal(rdapErrorOf(recordedBody("verisign-not-found")).title, "Not Found");
    assert.throws(() => normaliseDomain(recordedBody("verisign-not-found")), RdapShapeError);
    assert.throws(() => normaliseDomain("nope"), RdapShapeError);
  });
});
