// A loopback facilitator whose verify and settle answers each test chooses (the fault matrix).
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StubBehaviour =
  | { kind: "json"; status: number; body: unknown; delayMs?: number }
  | { kind: "hang" };

export interface StubFacilitator {
  url: string;
  calls: { verify: number; settle: number };
  verify: StubBehaviour;
  settle: StubBehaviour;
  close: () => Promise<void>;
}

export const STUB_VALID = {
  kind: "json" as const,
  status: 200,
  body: { isValid: true, payer: "0x0000000000000000000000000000000000000001" },
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

const supported = {
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

export async function startStubFacilitator(): Promise<StubFacilitator> {
  const hanging = new Set<http.ServerResponse>();
  const stub: StubFacilitator = {
    url: "",
    calls: { verify: 0, settle: 0 },
    verify: STUB_VALID,
    settle: STUB_SETTLED,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const route = req.url?.replace(/\/+$/, "") ?? "";
      let behaviour: StubBehaviour;
      if (route.endsWith("/supported")) behaviour = { kind: "json", status: 200, body: supported };
      else if (route.endsWith("/verify")) {
        stub.calls.verify++;
        behaviour = stub.verify;
      } else if (route.endsWith("/settle")) {
        stub.calls.settle++;
        behaviour = stub.settle;
      } else behaviour = { kind: "json", status: 404, body: { error: "not found" } };
      if (behaviour.kind === "hang") {
        hanging.add(res);
        return;
      }
      const answer = () => {
        res.writeHead(behaviour.status, { "content-type": "application/json" });
        res.end(JSON.stringify(behaviour.body));
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return stub;
}
