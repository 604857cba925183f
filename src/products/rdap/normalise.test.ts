import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseBootstrap, registryFor } from "./bootstrap.ts";
import { parseDomain } from "./domain.ts";
import { recordedBody } from "./harness.test-helper.ts";
import { normaliseDomain, normaliseRdapDate, RdapShapeError, rdapErrorOf, termsNotice } from "./normalise.ts";
import { parseSupplement, RDAP_SUPPLEMENT, routeFor } from "./supplement.ts";

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

  it("maps every listed TLD to its base URLs (IANA's real file of 2026-07-23)", () => {
    assert.equal(bootstrap.publication, "2026-07-23T02:00:03Z");
    assert.deepEqual(bootstrap.services.net, ["https://rdap.verisign.com/net/v1/"]);
    assert.deepEqual(bootstrap.services.no, ["https://rdap.norid.no/"]);
    assert.ok(Object.keys(bootstrap.services).length > 1000);
    for (const tld of ["de", "io", "co", "me", "ch", "li", "eu", "jp"])
      assert.equal(bootstrap.services[tld], undefined);
  });

  it("routes by the longest listed suffix, https preferred, base ending in /", () => {
    assert.deepEqual(registryFor(bootstrap, ["www", "google", "com"]), {
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

describe("RDAP supplement to IANA's bootstrap", () => {
  const bootstrap = parseBootstrap(recordedBody("bootstrap-dns"));

  it("routes the TLDs IANA's file omits (denic.de, github.io), each with its source", () => {
    const de = routeFor(bootstrap, ["denic", "de"]);
    assert.equal(de?.routedBy, "supplement");
    assert.equal(de?.baseUrl, "https://rdap.denic.de/");
    assert.equal(de?.entry?.source, "https://www.denic.de/en/content-pool/rdap-master");
    const io = routeFor(bootstrap, ["github", "io"]);
    assert.equal(io?.routedBy, "supplement");
    assert.equal(io?.baseUrl, "https://rdap.identitydigital.services/rdap/");
    assert.match(io?.entry?.source ?? "", /^https:\/\/github\.com\/case\/iana-data\/blob\/[0-9a-f]{40}\//);
    for (const tld of ["co", "me", "ch", "li"])
      assert.equal(routeFor(bootstrap, ["x", tld])?.routedBy, "supplement");
    assert.equal(routeFor(bootstrap, ["example", "zz"]), undefined);
  });

  it("IANA's file is consulted first: a TLD it lists is never routed by the supplement", () => {
    const supplement = parseSupplement(
      JSON.stringify({
        updated: "2026-11-27",
        entries: [
          {
            tld: "com",
            baseUrl: "https://elsewhere.example/",
            source: "https://x.example/",
            checkedOn: "2026-01-01",
          },
        ],
      }),
    );
    const com = routeFor(bootstrap, ["google", "com"], supplement);
    assert.deepEqual(com, {
      suffix: "com",
      baseUrl: "https://rdap.verisign.com/com/v1/",
      routedBy: "iana",
      entry: null,
    });
  });

  it("every entry has an https source and none duplicates a TLD IANA's file lists", () => {
    assert.ok(RDAP_SUPPLEMENT.entries.length >= 19);
    for (const entry of RDAP_SUPPLEMENT.entries) {
      assert.match(entry.source, /^https:\/\//, entry.tld);
      assert.equal(bootstrap.services[entry.tld], undefined, `${entry.tld} is listed by IANA: drop it`);
    }
    assert.throws(
      () =>
        parseSupplement(
          JSON.stringify({
            updated: "2026-11-27",
            entries: [{ tld: "de", baseUrl: "https://rdap.denic.de/", checkedOn: "2026-01-01" }],
          }),
        ),
      /source/,
    );
  });
});

describe("RDAP domain normaliser", () => {
  it("a thin registry answer (Verisign's real google.com): registrar, referral, status, events, terms", () => {
    const d = normaliseDomain(recordedBody("verisign-google-com"));
    assert.equal(d.ldhName, "google.com");
    assert.deepEqual(d.registrar, {
      name: "MarkMonitor Inc.",
      ianaId: "292",
      handle: "292",
      url: null,
      abuseEmail: "abusecomplaints@markmonitor.com",
      abusePhone: "+1.2086851750",
    });
    assert.equal(d.referralUrl, "https://rdap.markmonitor.com/rdap/domain/GOOGLE.COM");
    assert.deepEqual(d.nameservers, ["ns1.google.com", "ns2.google.com", "ns3.google.com", "ns4.google.com"]);
    assert.equal(d.delegationSigned, false);
    assert.equal(d.status.length, 6);
    assert.equal(d.contacts.length, 0);
    assert.equal(termsNotice(d.notices)?.title, "Terms of Use");
    assert.match(termsNotice(d.notices)?.links[0] ?? "", /verisign\.com/);
  });

  it("registrar dates with an offset without a colon (MarkMonitor's real answer) are normalised", () => {
    const d = normaliseDomain(recordedBody("markmonitor-google-com"));
    assert.deepEqual(
      d.events.find((e) => e.action === "expiration"),
      { action: "expiration", date: "2028-09-13T07:00:00.000+00:00" },
    );
    assert.equal(normaliseRdapDate("2023-01-01T00:00:00.000+0000"), "2023-01-01T00:00:00.000+00:00");
    assert.equal(normaliseRdapDate("2018-03-12T21:44:25+01:00"), "2018-03-12T21:44:25+01:00");
    assert.equal(normaliseRdapDate("2018-03-12 21:44+0530"), "2018-03-12T21:44:00+05:30");
    assert.equal(normaliseRdapDate("1997-09-15T04:00:00Z"), "1997-09-15T04:00:00Z");
    assert.equal(normaliseRdapDate("1997-09-15T04:00:00"), null, "no offset: not an RFC 3339 instant");
    assert.equal(normaliseRdapDate("15.09.1997"), null);
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
