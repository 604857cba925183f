// Bench child: the reference @x402/hono paymentMiddleware on the same route. With BENCH_FACILITATOR_URL it uses
// the SDK's default HTTP facilitator client against that URL (the paid-path bench); otherwise an in-process
// client that only answers getSupported (the 402 bench never pays). BENCH_BODY is the route's JSON answer.
// BENCH_EXTENSIONS (JSON) and BENCH_UNPAID_BODY (JSON) make its 402 carry the same extensions and body as
// paycall's, so the two write the same amount of 402 (the 402 bench's "same content" reference).
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type FacilitatorClient, HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware } from "@x402/hono";
import { Hono } from "hono";
import { announce, eventLoopProbe, exitWith } from "./common.ts";

const NETWORK = "eip155:8453";
const payTo = process.env.BENCH_PAY_TO;
if (!payTo) throw new Error("BENCH_PAY_TO (the pay-to address paycall uses) is required");
const description = process.env.BENCH_DESCRIPTION ?? "Euro reference exchange rate for one currency";
const routePath = process.env.BENCH_ROUTE_PATH ?? "/v1/macro/ecb/fx";

const offline: FacilitatorClient = {
  async getSupported(): Promise<SupportedResponse> {
    return { kinds: [{ x402Version: 2, scheme: "exact", network: NETWORK }], extensions: [], signers: {} };
  },
  async verify() {
    throw new Error("the bench facilitator does not verify payments");
  },
  async settle() {
    throw new Error("the bench facilitator does not settle payments");
  },
};

const facilitatorUrl = process.env.BENCH_FACILITATOR_URL;
const facilitator = facilitatorUrl ? new HTTPFacilitatorClient({ url: facilitatorUrl }) : offline;
const body = process.env.BENCH_BODY ?? JSON.stringify({ ok: true });
const extensions = process.env.BENCH_EXTENSIONS
  ? (JSON.parse(process.env.BENCH_EXTENSIONS) as Record<string, unknown>)
  : undefined;
const unpaidBody = process.env.BENCH_UNPAID_BODY ? JSON.parse(process.env.BENCH_UNPAID_BODY) : undefined;
const resourceServer = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmScheme());
const app = new Hono();
app.use(
  paymentMiddleware(
    {
      [`GET ${routePath}`]: {
        accepts: { scheme: "exact", network: NETWORK, payTo, price: "$0.005", maxTimeoutSeconds: 300 },
        description,
        mimeType: "application/json",
        ...(extensions ? { extensions } : {}),
        ...(unpaidBody
          ? { unpaidResponseBody: () => ({ contentType: "application/json", body: unpaidBody }) }
          : {}),
      },
    },
    resourceServer,
    undefined,
    undefined,
    true,
  ),
);
app.get(routePath, () => new Response(body, { headers: { "content-type": "application/json" } }));

const server = serve({
  fetch: app.fetch,
  port: Number(process.env.BENCH_REFERENCE_PORT ?? 0),
  hostname: "127.0.0.1",
});
server.once("listening", async () => {
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    eventLoopProbe: await eventLoopProbe(),
  });
});
exitWith(() => new Promise<void>((resolve) => server.close(() => resolve())));
