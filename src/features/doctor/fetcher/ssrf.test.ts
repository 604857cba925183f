// The SSRF guard: every way of naming a private, loopback, link-local or otherwise non-public address is
// refused before a byte is sent, and a loopback server that would answer them sees no request.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { FetchRefusedError, isPublicAddress, type RefusalReason } from "./address-policy.ts";
import { FetchFailedError, type Resolver, SafeFetcher } from "./safe-fetcher.ts";

interface Target {
  port: number;
  hits: http.IncomingMessage[];
  server: http.Server;
}

async function listen(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host: string,
): Promise<Target> {
  const hits: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req);
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host, ipv6Only: false }, resolve);
  });
  return { port: (server.address() as AddressInfo).port, hits, server };
}

const fakeDns: Record<string, string[]> = {
  localhost: ["127.0.0.1", "::1"],
  "metadata.google.internal": ["169.254.169.254"],
  "internal.example": ["10.1.2.3"],
  "rebind.example": ["93.184.216.34", "127.0.0.1"],
  "v6loop.example": ["::1"],
  "mapped.example": ["::ffff:10.0.0.1"],
  "cgnat.example": ["100.100.100.100"],
  "seller.test": ["127.0.0.1"],
};
let lookups: string[] = [];
const resolver: Resolver = async (hostname) => {
  lookups.push(hostname);
  const addresses = fakeDns[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

let target: Target; // would answer anything that slipped through; must never be reached
let redirector: Target; // allow-listed; redirects as its path says
let plain: SafeFetcher; // the target's port is allowed, so only the address check stands in the way
let viaRedirector: SafeFetcher;
let strict: SafeFetcher; // ports 80 and 443 only

before(async () => {
  try {
    target = await listen((_req, res) => res.end("internal secret"), "::");
  } catch {
    target = await listen((_req, res) => res.end("internal secret"), "127.0.0.1");
  }
  redirector = await listen((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/to") {
      res.writeHead(Number(url.searchParams.get("status") ?? 302), {
        location: (url.searchParams.get("location") ?? "").replaceAll("TARGET", String(target.port)),
      });
      res.end();
    } else if (url.pathname === "/loop") {
      const n = Number(url.searchParams.get("n") ?? 0);
      const stop = Number(url.searchParams.get("stop") ?? Number.POSITIVE_INFINITY);
      if (n >= stop) {
        res.end("{}");
        return;
      }
      res.writeHead(302, { location: `/loop?n=${n + 1}&stop=${stop}` });
      res.end();
    } else if (url.pathname === "/big") {
      res.end(Buffer.alloc(50_000, 120));
    } else if (url.pathname === "/slow") {
      // never answers
    } else {
      res.writeHead(200, { "content-type": "application/json", "set-cookie": "a=b" });
      res.end(
        JSON.stringify({
          host: req.headers.host,
          cookie: req.headers.cookie ?? null,
          auth: req.headers.authorization ?? null,
        }),
      );
    }
  }, "127.0.0.1");
  const ports = new Set([80, 443, target.port]);
  const base = { timeoutMs: 3000, maxBodyBytes: 10_000, userAgent: "paycall-doctor-test", resolve: resolver };
  plain = new SafeFetcher({ ...base, allowedPorts: ports });
  viaRedirector = new SafeFetcher({
    ...base,
    allowedPorts: ports,
    allowHosts: new Set([`127.0.0.1:${redirector.port}`, `seller.test:${redirector.port}`]),
  });
  strict = new SafeFetcher(base);
});

after(async () => {
  await Promise.all([plain.close(), viaRedirector.close(), strict.close()]);
  target.server.closeAllConnections();
  redirector.server.closeAllConnections();
  target.server.close();
  redirector.server.close();
});

async function expectRefused(fetcher: SafeFetcher, url: string, reasons: RefusalReason[]): Promise<void> {
  const hitsBefore = target.hits.length;
  await assert.rejects(
    fetcher.fetch({ url }),
    (error: unknown) => {
      assert.ok(error instanceof FetchRefusedError, `${url}: expected a refusal, got ${String(error)}`);
      assert.ok(reasons.includes(error.reason), `${url}: refused for ${error.reason}, expected ${reasons}`);
      return true;
    },
    url,
  );
  assert.equal(target.hits.length, hitsBefore, `${url} reached the internal server`);
}

const P = "TARGETPORT";
const literalAttempts: Array<[string, string]> = [
  ["dotted loopback", `http://127.0.0.1:${P}/`],
  ["short loopback", `http://127.1:${P}/`],
  ["hex and short", `http://0x7f.1:${P}/`],
  ["single hex number", `http://0x7f000001:${P}/`],
  ["single decimal number", `http://2130706433:${P}/`],
  ["single octal number", `http://017700000001:${P}/`],
  ["octal first octet", `http://0177.0.0.1:${P}/`],
  ["zero-padded octets", `http://127.000.000.001:${P}/`],
  ["trailing dot", `http://127.0.0.1.:${P}/`],
  ["percent-encoded host", `http://%31%32%37.0.0.1:${P}/`],
  ["full-width digits", `http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:${P}/`],
  ["bare zero", `http://0:${P}/`],
  ["unspecified", `http://0.0.0.0:${P}/`],
  ["RFC 1918 10/8", "http://10.0.0.1/"],
  ["RFC 1918 172.16/12", "http://172.16.5.4/"],
  ["RFC 1918 192.168/16", "http://192.168.0.1/"],
  ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
  ["metadata in decimal", "http://2852039166/latest/meta-data/"],
  ["carrier-grade NAT", "http://100.64.0.1/"],
  ["multicast", "http://224.0.0.1/"],
  ["broadcast", "http://255.255.255.255/"],
  ["reserved 240/4", "http://240.0.0.1/"],
  ["benchmarking 198.18/15", "http://198.18.0.1/"],
  ["documentation 192.0.2/24", "http://192.0.2.10/"],
  ["IPv6 loopback", `http://[::1]:${P}/`],
  ["IPv6 unspecified", `http://[::]:${P}/`],
  ["IPv4-mapped dotted", `http://[::ffff:127.0.0.1]:${P}/`],
  ["IPv4-mapped hex", `http://[::ffff:7f00:1]:${P}/`],
  ["IPv4-mapped long form", `http://[0:0:0:0:0:ffff:7f00:1]:${P}/`],
  ["IPv4-mapped metadata", "http://[::ffff:169.254.169.254]/"],
  ["IPv4-compatible loopback", `http://[::127.0.0.1]:${P}/`],
  ["IPv6 link-local", "http://[fe80::1]/"],
  ["IPv6 unique-local", "http://[fc00::1]/"],
  ["AWS IPv6 metadata", "http://[fd00:ec2::254]/"],
  ["IPv6 multicast", "http://[ff02::1]/"],
  ["NAT64 of loopback", "http://[64:ff9b::7f00:1]/"],
  ["6to4 of loopback", "http://[2002:7f00:1::1]/"],
  ["Teredo", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"],
  ["IPv6 site-local", "http://[fec0::1]/"],
  ["IPv6 documentation", "http://[2001:db8::1]/"],
];

const dnsAttempts: Array<[string, string]> = [
  ["localhost", `http://localhost:${P}/`],
  ["metadata host name", "http://metadata.google.internal/computeMetadata/v1/"],
  ["name resolving to 10/8", "http://internal.example/"],
  ["name resolving to public and loopback", `http://rebind.example:${P}/`],
  ["name resolving to IPv6 loopback", `http://v6loop.example:${P}/`],
  ["name resolving to mapped private", "http://mapped.example/"],
  ["name resolving to carrier-grade NAT", "https://cgnat.example/"],
];

describe("literal addresses in every notation are refused", () => {
  for (const [label, url] of literalAttempts) {
    test(label, async () => {
      await expectRefused(plain, url.replace(P, String(target.port)), ["address_not_public"]);
    });
  }
});

describe("names resolving to non-public addresses are refused", () => {
  for (const [label, url] of dnsAttempts) {
    test(label, async () => {
      await expectRefused(plain, url.replace(P, String(target.port)), ["address_not_public"]);
    });
  }
});

describe("schemes, ports and credentials outside the rules are refused", () => {
  const attempts: Array<[string, RefusalReason]> = [
    ["http://example.com:8080/", "port_not_allowed"],
    ["https://example.com:22/", "port_not_allowed"],
    ["http://example.com:0/", "port_not_allowed"],
    [`http://127.0.0.1:${6379}/`, "port_not_allowed"],
    ["ftp://example.com/file", "scheme_not_allowed"],
    ["file:///etc/passwd", "scheme_not_allowed"],
    ["gopher://127.0.0.1:70/_x", "scheme_not_allowed"],
    ["data:text/plain,hello", "scheme_not_allowed"],
    ["javascript:alert(1)", "scheme_not_allowed"],
    ["ws://example.com/socket", "scheme_not_allowed"],
    ["http://user:secret@example.com/", "credentials_in_url"],
    ["not a url", "invalid_url"],
  ];
  for (const [url, reason] of attempts) {
    test(url, async () => {
      await expectRefused(strict, url, [reason]);
    });
  }
});

describe("redirects are re-checked at every hop", () => {
  const hops: Array<[string, string, RefusalReason]> = [
    ["to loopback on another port", "302 http://127.0.0.1:TARGET/", "address_not_public"],
    ["to localhost", "302 http://localhost:TARGET/", "address_not_public"],
    ["to cloud metadata", "302 http://169.254.169.254/latest/meta-data/", "address_not_public"],
    ["to a file", "301 file:///etc/passwd", "scheme_not_allowed"],
    ["to IPv6 loopback", "307 http://[::1]:TARGET/", "address_not_public"],
    ["to a name resolving privately", "308 http://internal.example/", "address_not_public"],
    ["to hex loopback", "303 http://0x7f.1:TARGET/", "address_not_public"],
    ["to a closed port", "302 http://example.com:25/", "port_not_allowed"],
  ];
  for (const [label, hop, reason] of hops) {
    test(label, async () => {
      const [status, location] = hop.split(" ") as [string, string];
      const url = `http://127.0.0.1:${redirector.port}/to?${new URLSearchParams({ status, location })}`;
      await expectRefused(viaRedirector, url, [reason]);
    });
  }

  test("more than five redirects", async () => {
    await expectRefused(viaRedirector, `http://127.0.0.1:${redirector.port}/loop`, ["too_many_redirects"]);
  });

  test("up to five redirects on an allowed host are followed", async () => {
    const answer = await viaRedirector.fetch({ url: `http://127.0.0.1:${redirector.port}/loop?n=0&stop=5` });
    assert.equal(answer.status, 200);
    assert.equal(answer.redirects.length, 5);
    assert.equal(answer.url, `http://127.0.0.1:${redirector.port}/loop?n=5&stop=5`);
  });
});

describe("what the guard lets through", () => {
  test("an allow-listed host is reached, without cookies or credentials, and cookies are not kept", async () => {
    const answer = await viaRedirector.fetch({
      url: `http://127.0.0.1:${redirector.port}/echo`,
      headers: { cookie: "session=1", authorization: "Bearer x", "x-test": "1" },
    });
    assert.equal(answer.status, 200);
    const body = JSON.parse(answer.body.toString("utf8"));
    assert.equal(body.cookie, null);
    assert.equal(body.auth, null);
    assert.equal(answer.headers.get("set-cookie"), null);
  });

  test("a name is resolved once, through the injected resolver, and the socket goes to that address", async () => {
    lookups = [];
    const answer = await viaRedirector.fetch({ url: `http://seller.test:${redirector.port}/echo` });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body.toString("utf8")).host, `seller.test:${redirector.port}`);
    assert.deepEqual(lookups, ["seller.test"]);
  });

  test("proxy variables are ignored", async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    process.env.http_proxy = "http://127.0.0.1:9";
    try {
      const fetcher = new SafeFetcher({
        timeoutMs: 3000,
        maxBodyBytes: 10_000,
        userAgent: "t",
        allowHosts: new Set([`127.0.0.1:${redirector.port}`]),
      });
      const answer = await fetcher.fetch({ url: `http://127.0.0.1:${redirector.port}/echo` });
      assert.equal(answer.status, 200);
      await fetcher.close();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  test("bodies are cut at the cap", async () => {
    const answer = await viaRedirector.fetch({ url: `http://127.0.0.1:${redirector.port}/big` });
    assert.equal(answer.truncated, true);
    assert.equal(answer.body.length, 10_000);
  });

  test("a seller that never answers times out", async () => {
    const quick = new SafeFetcher({
      timeoutMs: 600,
      maxBodyBytes: 1000,
      userAgent: "t",
      allowHosts: new Set([`127.0.0.1:${redirector.port}`]),
    });
    await assert.rejects(
      quick.fetch({ url: `http://127.0.0.1:${redirector.port}/slow` }),
      (error: unknown) => {
        assert.ok(error instanceof FetchFailedError);
        assert.equal(error.kind, "timeout");
        return true;
      },
    );
    await quick.close();
  });

  test("an unknown host name is a DNS failure, not a crash", async () => {
    await assert.rejects(strict.fetch({ url: "http://no-such-host.example/" }), (error: unknown) => {
      assert.ok(error instanceof FetchFailedError);
      assert.equal(error.kind, "dns");
      return true;
    });
  });

  test("public addresses pass the address check", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });
});
