// End to end: a real x402 buyer pays /v1/rdap/domain through the local facilitator; IANA's bootstrap and a
// registry are loopback servers answering from the recordings (404, a 3xx referral, a 429 with Retry-After).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { newBuyer, payingFetch, startTestService, type TestService } from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { type LoopbackUpstream, startLoopbackUpstream } from "../npm/harness.test-helper.ts";
import { RdapDomainAnswer } from "./domain-product.ts";
import { recordedBody } from "./harness.test-helper.ts";
import { rdapFamily } from "./index.ts";
import { RdapStatusAnswer } from "./status.ts";

describe("paid /v1/rdap/domain end to end", () => {
  let iana: LoopbackUpstream;
  let registry: LoopbackUpstream;
  let service: TestService;
  const buyer = newBuyer();
  const json = { "content-type": "application/rdap+json" };

  before(async () => {
    registry = await startLoopbackUpstream(
      (url): { status: number; headers?: Record<string, string>; body: string } => {
        switch (url.pathname) {
          case "/com/v1/domain/google.com":
            return { status: 200, headers: json, body: recordedBody("verisign-google-com") };
          case "/denic/domain/xn--mnchen-3ya.de":
            return { status: 200, headers: json, body: recordedBody("denic-idn") };
          case "/com/v1/domain/sample-not-registered-7x9.com":
            return { status: 404, headers: json, body: recordedBody("verisign-not-found") };
          case "/com/v1/domain/referred.net":
            return { status: 302, headers: { location: "/elsewhere/domain/referred.net" }, body: "" };
          case "/elsewhere/domain/referred.net":
            return {
              status: 200,
              headers: json,
              body: recordedBody("verisign-google-com").replaceAll("GOOGLE.COM", "REFERRED.NET"),
            };
          case "/org/domain/sample-redacted.org":
            return { status: 200, headers: json, body: recordedBody("pir-redacted-org") };
          case "/org/domain/busy.org":
            return {
              status: 429,
              headers: { ...json, "retry-after": "120" },
              body: recordedBody("google-throttled"),
            };
          default:
            return { status: 500, body: "unexpected" };
        }
      },
    );
    const services = [
      [["com", "net"], [`${registry.baseUrl}/com/v1/`]],
      [["org"], [`${registry.baseUrl}/org/`]],
    ];
    iana = await startLoopbackUpstream(() => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        description: "test",
        publication: "2025-07-21T19:00:01Z",
        version: "1.0",
        services,
      }),
    }));
    const env = {
      UPSTREAMS: "live",
      IANA_RDAP_BASE_URL: iana.baseUrl,
      // The supplement routes .de to https://rdap.denic.de/; this points that registry's client at the stand-in.
      RDAP_REGISTRY_RDAP_DENIC_DE_BASE_URL: `${registry.baseUrl}/denic`,
      LOG_LEVEL: "silent",
    };
    service = await startTestService(env, [rdapFamily(loadConfig(env))]);
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  });
  after(async () => {
    await service.stop();
    await registry.close();
    await iana.close();
  });

  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  const url = (domain: string) => `${service.url}/v1/rdap/domain?${new URLSearchParams({ domain })}`;

  it("asks for payment first", async () => {
    const response = await fetch(url("google.com"));
    assert.equal(response.status, 402);
    const headerBytes = [...response.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(headerBytes < 12_000, `${headerBytes} bytes of headers`);
    assert.equal(registry.requests.length, 0);
  });

  it("a domain not cached: bootstrap, then the registry, live; charged 0.01; the registry's terms kept", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("GOOGLE.com."));
    assert.equal(response.status, 200);
    const body = RdapDomainAnswer.parse(await response.json());
    assert.equal(body.domain, "google.com");
    assert.equal(body.tld, "com");
    assert.equal(body.routedBy, "iana");
    assert.equal(body.routeSource, `${iana.baseUrl}/rdap/dns.json`);
    assert.equal(body.registrar?.ianaId, "292");
    assert.equal(body.registrar?.rdapUrl, "https://rdap.markmonitor.com/rdap/domain/GOOGLE.COM");
    assert.equal(body.expiresAt, "2028-09-14T04:00:00Z");
    assert.equal(body.registryDataUpdatedAt, "2024-07-29T17:23:53Z");
    assert.equal(body.dnssec.delegationSigned, false);
    assert.equal(body.registryTerms?.title, "Terms of Use");
    assert.match(body.licence.url, /verisign\.com\/domain-names/);
    assert.match(body.notice, /terms of service.*IANA's RDAP bootstrap file/);
    assert.equal(body.sourceUrl, `${registry.baseUrl}/com/v1/domain/google.com`);
    assert.equal(before - (await balance()), 10_000n);
    assert.equal(iana.requests.length, 1);
  });

  it("a TLD IANA's file omits (.de) is routed by the supplement, and the answer says so", async () => {
    const before = await balance();
    const response = await payingFetch(buyer)(url("münchen.de"));
    assert.equal(response.status, 200);
    const body = RdapDomainAnswer.parse(await response.json());
    assert.equal(body.domain, "xn--mnchen-3ya.de");
    assert.equal(body.routedBy, "supplement");
    assert.equal(body.routeSource, "https://www.denic.de/en/content-pool/rdap-master");
    assert.ok(body.sources.includes("https://www.denic.de/en/content-pool/rdap-master"));
    assert.match(body.notice, /supplement to IANA's bootstrap file \(IANA lists no RDAP service for \.de/);
    assert.equal(body.lastChangedAt, "2018-03-12T21:44:25+01:00");
    assert.equal(before - (await balance()), 10_000n);
  });

  it("redacted contacts are noted; a 3xx referral to another server is followed", async () => {
    const redacted = RdapDomainAnswer.parse(
      await (await payingFetch(buyer)(url("sample-redacted.org"))).json(),
    );
    assert.equal(redacted.contactsRedacted, true);
    assert.equal(redacted.redactedFields.length, 3);
    assert.equal(redacted.lastTransferredAt, "2019-02-11T10:00:00.000Z");
    const referred = RdapDomainAnswer.parse(await (await payingFetch(buyer)(url("referred.net"))).json());
    assert.equal(referred.domain, "referred.net");
  });

  it("not registered: 404; a TLD without RDAP: 404 before payment; neither charged", async () => {
    const before = await balance();
    const missing = await payingFetch(buyer)(url("sample-not-registered-7x9.com"));
    assert.equal(missing.status, 404);
    const body = (await missing.json()) as Record<string, unknown>;
    assert.match(String(body.message), /not registered/);
    assert.equal(body.charged, false);
    const unsupported = await fetch(url("example.zz"));
    assert.equal(unsupported.status, 404);
    assert.equal(unsupported.headers.get("payment-required"), null);
    assert.equal(((await unsupported.json()) as Record<string, unknown>).error, "unsupported_tld");
    assert.equal(await balance(), before);
  });

  it("a registry's 429: 503 with its Retry-After, and the registry is left alone meanwhile", async () => {
    const before = await balance();
    const first = await payingFetch(buyer)(url("busy.org"));
    assert.equal(first.status, 503);
    const body = (await first.json()) as Record<string, unknown>;
    assert.equal(body.retryAfterSec, 120);
    assert.equal(body.charged, false);
    const asked = registry.requests.filter((u) => u.pathname.startsWith("/org/")).length;
    const second = await payingFetch(buyer)(url("other.org"));
    assert.equal(second.status, 503);
    assert.ok(Number(((await second.json()) as Record<string, unknown>).retryAfterSec) > 100);
    assert.equal(registry.requests.filter((u) => u.pathname.startsWith("/org/")).length, asked);
    assert.equal(await balance(), before);
    const status = RdapStatusAnswer.parse(await (await fetch(`${service.url}/v1/rdap/status`)).json());
    assert.equal(status.pausedRegistries.length, 1);
    assert.equal(status.bootstrap.tlds, 3);
    assert.ok(status.supplement.tlds.includes("de"));
    assert.match(status.upstreamFetches.lastError ?? "", /asked for a pause|429/);
  });

  it("bad input is a 400 naming domain, before payment", async () => {
    for (const query of [
      "domain=",
      "domain=com",
      "domain=https%3A%2F%2Fexample.com",
      "domain=a..b",
      "domain=example.com&tld=com",
    ]) {
      const response = await fetch(`${service.url}/v1/rdap/domain?${query}`);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.parameter, query.includes("tld") ? "tld" : "domain");
    }
  });
});

describe("RDAP offline (UPSTREAMS=replay)", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({}, [rdapFamily(loadConfig({ UPSTREAMS: "replay" }))]);
  });
  after(() => service.stop());

  it("the free sample answers from the recordings and says it is a sample", async () => {
    const response = await fetch(`${service.url}/v1/rdap/domain?domain=google.com&sample=1`);
    assert.equal(response.status, 200);
    const body = RdapDomainAnswer.parse(await response.json());
    assert.equal(body.registrar?.name, "MarkMonitor Inc.");
    assert.equal(body.routedBy, "iana");
    assert.match(body.notice, /^RECORDED SAMPLE, NOT LIVE DATA/);
  });

  it("an IDN is looked up by its A-label; a recorded 429 is a 503 with its Retry-After", async () => {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const idn = RdapDomainAnswer.parse(
      await (await payingFetch(buyer)(`${service.url}/v1/rdap/domain?domain=M%C3%BCnchen.de`)).json(),
    );
    assert.equal(idn.domain, "xn--mnchen-3ya.de");
    assert.equal(idn.unicodeName, "münchen.de");
    assert.equal(idn.registryTerms?.title, "Terms and Conditions");
    assert.equal(idn.routedBy, "supplement", "IANA's real file (2026-07-23) lists no .de");
    const throttled = await payingFetch(buyer)(`${service.url}/v1/rdap/domain?domain=sample-throttled.dev`);
    assert.equal(throttled.status, 503);
    assert.equal(((await throttled.json()) as Record<string, unknown>).retryAfterSec, 120);
  });

  it("the bootstrap warmer refreshes IANA's file", async () => {
    const counts = await service.worker.runWarmer("rdap.bootstrap");
    assert.deepEqual(counts, { tlds: 1200, publication: "2026-07-23T02:00:03Z" });
  });
});
