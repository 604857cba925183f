// A loopback facilitator whose verify and settle answers each test chooses (the fault matrix). With
// `requireJwt` it authenticates like Coinbase's: every call must carry a CDP JWT signed by the key, made for
// this method, host and path, and unexpired; otherwise 401.
import { type KeyObject, verify } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StubBehaviour =
  | { kind: "json"; status: number; body: unknown; delayMs?: number }
  /** A body that is not what it says (malformed JSON, a truncated answer). */
  | { kind: "raw"; status: number; text: string }
  | { kind: "hang" };

export interface StubFacilitator {
  url: string;
  calls: { verify: number; settle: number };
  /** Verify and settle requests received and not yet answered, and the most there were at once. */
  open: { verify: number; settle: number };
  peak: { verify: number; settle: number };
  verify: StubBehaviour;
  settle: StubBehaviour;
  /** The /supported answer (tests withdraw a network by changing it). */
  supported: {
    kinds: Array<Record<string, unknown>>;
    extensions: string[];
    signers: Record<string, string[]>;
  };
  /** Verify and settle requests being answered now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  /** Runs once a verify's answer is sent (e.g. the facilitator goes away before the settle). */
  afterVerify?: () => void;
  /** Stops listening: new connections are refused (the port stays reserved for `accept`). */
  refuse: () => Promise<void>;
  /** Listens again on the same port. */
  accept: () => Promise<void>;
  /** Runs when a settle request arrives, before its answer (e.g. the transfer happens on the stand-in chain). */
  onSettle?: (body: { paymentPayload: any; paymentRequirements: any }) => void;
  /** Every call must carry a valid CDP JWT for this key. */
  requireJwt?: { keyId: string; publicKey: KeyObject };
  /** Calls refused for their JWT, with the reason. */
  refused: string[];
  /** The verified JWT claims of each accepted call. */
  tokens: Array<{ method: string; uri: string; iat: number; exp: number; nonce: string }>;
  close: () => Promise<void>;
}

function base64urlJson(part: string): Record<string, any> {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
}

/** Why a request's CDP JWT is not acceptable, or undefined with its claims recorded. */
function jwtProblem(stub: StubFacilitator, req: http.IncomingMessage): string | undefined {
  const expected = stub.requireJwt;
  if (!expected) return undefined;
  const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  if (!match?.[1]) return "no bearer token";
  const parts = match[1].split(".");
  if (parts.length !== 3) return "not a JWT";
  const [h, p, s] = parts as [string, string, string];
  const header = base64urlJson(h);
  const claims = base64urlJson(p);
  const data = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, "base64url");
  const valid =
    header.alg === "EdDSA"
      ? verify(null, data, expected.publicKey, signature)
      : header.alg === "ES256"
        ? verify("sha256", data, { key: expected.publicKey, dsaEncoding: "ieee-p1363" }, signature)
        : false;
  if (!valid) return "bad signature";
  if (header.kid !== expected.keyId || claims.sub !== expected.keyId) return "wrong key id";
  if (claims.iss !== "cdp") return "wrong issuer";
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== "number" || claims.exp <= now) return "expired";
  if (typeof claims.nbf !== "number" || claims.nbf > now + 5) return "not yet valid";
  if (claims.exp - claims.iat > 120) return "valid for more than two minutes";
  const uri = `${req.method} ${req.headers.host}${req.url}`;
  if (!Array.isArray(claims.uris) || claims.uris[0] !== uri) return `uri claim ${claims.uris} is not ${uri}`;
  stub.tokens.push({ method: req.method ?? "", uri, iat: claims.iat, exp: claims.exp, nonce: header.nonce });
  return undefined;
}

export const STUB_VALID = {
  kind: "json" as const,
  status: 200,
  body: { isValid: true, payer: "0x0000000000000000000000000000000000000001" },
} satisfies StubBehaviour;

/** A settlement the facilitator reports as failed (the transfer reverted): nothing was charged. */
export const STUB_SETTLE_FAILED = {
  kind: "json" as const,
  status: 200,
  body: {
    success: false,
    errorReason: "invalid_exact_evm_transaction_failed",
    transaction: "",
    network: "eip155:8453",
  },
} satisfies StubBehaviour;

export const STUB_SETTLED = {
  kind: "json" as const,
  status: 200,
  body: {
    success: true,
    transaction: `0x${"ab".repeat(32)}`,
    network: "eip155:8453",
    payer: "0x0000000000000000000000000000000000000001",
  },
} satisfies StubBehaviour;

export const SOLANA_FEE_PAYER = "FeePayer1111111111111111111111111111111111";

const SUPPORTED = {
  kinds: [
    { x402Version: 2, scheme: "exact", network: "eip155:8453" },
    {
      x402Version: 2,
      scheme: "exact",
      network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
      extra: { feePayer: SOLANA_FEE_PAYER },
    },
  ],
  extensions: [],
  signers: { "eip155:*": ["0x000000000000000000000000000000000000fac1"] },
};

/** Counts a verify or settle as open until its answer is sent (or its connection closes). */
function holdOpen(stub: StubFacilitator, operation: "verify" | "settle", res: http.ServerResponse): void {
  stub.open[operation]++;
  stub.peak[operation] = Math.max(stub.peak[operation], stub.open[operation]);
  res.once("close", () => stub.open[operation]--);
}

export async function startStubFacilitator(): Promise<StubFacilitator> {
  const hanging = new Set<http.ServerResponse>();
  const stub: StubFacilitator = {
    url: "",
    calls: { verify: 0, settle: 0 },
    open: { verify: 0, settle: 0 },
    peak: { verify: 0, settle: 0 },
    verify: STUB_VALID,
    settle: STUB_SETTLED,
    supported: structuredClone(SUPPORTED),
    inFlight: 0,
    maxInFlight: 0,
    refused: [],
    tokens: [],
    close: async () => {},
    refuse: async () => {},
    accept: async () => {},
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      const route = req.url?.replace(/\/+$/, "") ?? "";
      const problem = jwtProblem(stub, req);
      if (problem) {
        stub.refused.push(`${req.method} ${req.url}: ${problem}`);
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ errorType: "unauthorized", errorMessage: "Unauthorized" }));
        return;
      }
      let behaviour: StubBehaviour;
      const verifying = route.endsWith("/verify");
      if (route.endsWith("/supported")) behaviour = { kind: "json", status: 200, body: stub.supported };
      else if (verifying) {
        stub.calls.verify++;
        holdOpen(stub, "verify", res);
        behaviour = stub.verify;
      } else if (route.endsWith("/settle")) {
        stub.calls.settle++;
        holdOpen(stub, "settle", res);
        stub.onSettle?.(JSON.parse(raw));
        behaviour = stub.settle;
      } else behaviour = { kind: "json", status: 404, body: { error: "not found" } };
      if (behaviour.kind === "hang") {
        hanging.add(res);
        return;
      }
      const paymentCall = verifying || route.endsWith("/settle");
      if (paymentCall) {
        stub.inFlight++;
        stub.maxInFlight = Math.max(stub.maxInFlight, stub.inFlight);
      }
      const answer = () => {
        if (paymentCall) stub.inFlight--;
        res.writeHead(behaviour.status, { "content-type": "application/json" });
        res.end(behaviour.kind === "raw" ? behaviour.text : JSON.stringify(behaviour.body));
        if (verifying) stub.afterVerify?.();
      };
      if (behaviour.kind === "json" && behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  stub.url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    for (const res of hanging) res.destroy();
    hanging.clear();
    server.closeAllConnections();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  stub.close = stop;
  stub.refuse = stop;
  stub.accept = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return stub;
}
