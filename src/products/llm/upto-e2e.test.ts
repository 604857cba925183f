// The chat billed by use, end to end on loopback: @x402/fetch with the upto client pays through the local
// facilitator (Permit2 on the pretend ledger) and is charged the tokens the provider reports, not max_tokens.
// Prices by hand as in e2e.test.ts (test rates: 1.5 USD per million prompt tokens, 3 per million answer tokens,
// 0.005 USD a call, rounded up to the atomic unit).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodePaymentResponseHeader } from "@x402/fetch";
import {
  decodeBase64Json,
  newBuyer,
  payingFetch,
  startTestService,
  type TestService,
  uptoPayingFetch,
} from "../../../test/harness.ts";
import { type StubFacilitator, startStubFacilitator } from "../../../test/stub-facilitator.ts";
import { loadConfig } from "../../config.ts";
import { receiptsFamily } from "../../features/receipts/index.ts";
import { sha256 } from "../../sha256.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { LOCAL_FACILITATOR_ADDRESS } from "../../x402/facilitator/ledger-signer.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { type FakeProvider, startFakeProvider } from "./harness.test-helper.ts";
import { llmFamily } from "./index.ts";

const ENV = {
  UPSTREAMS: "live",
  LLM_API_KEY: "sk-e2e",
  LLM_INSTRUCTIONS: "Be brief.",
  LLM_TIMEOUT_MS: "1000",
};

const hello = { messages: [{ role: "user", content: "Hello" }] };
// The maximum (e2e.test.ts): 15 prompt tokens × 1.5 + 1024 × 3 = 3094.5 → 3095; + 5000.
const HELLO_MAX_ATOMIC = "8095";
// The fake provider reports prompt_tokens 20, completion_tokens 3: 20 × 1.5 + 3 × 3 = 39; + 5000.
const HELLO_USED_ATOMIC = "5039";

type ChatBody = {
  x402: {
    scheme: string;
    priceUsd: string;
    maxPriceUsd: string;
    billedInputTokens: number;
    billedOutputTokens: number;
    reasoningTokens?: number;
  };
};

function post(url: string, body: unknown, fetchImpl: typeof fetch = fetch): Promise<Response> {
  return fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** What /openapi.json and /.well-known/x402 declare for the chat: its x402 schemes and their networks. */
async function declaredSchemes(url: string): Promise<{ openapi: string[]; wellKnown: unknown }> {
  const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      {
        post?: {
          "x-payment-info"?: {
            protocols: Array<{ x402: { scheme: string; networks: string[]; upto?: { networks: string[] } } }>;
          };
        };
      }
    >;
  };
  const protocols = openapi.paths["/v1/llm/chat"]?.post?.["x-payment-info"]?.protocols ?? [];
  const wellKnown = (await (await fetch(`${url}/.well-known/x402`)).json()) as {
    items: Array<{ sku: string; scheme: string; upto?: unknown }>;
  };
  const item = wellKnown.items.find((i) => i.sku === "llm.chat");
  return {
    openapi: protocols.flatMap((p) => [
      `${p.x402.scheme} ${p.x402.networks.join(",")}`,
      ...(p.x402.upto ? [`upto ${p.x402.upto.networks.join(",")}`] : []),
    ]),
    wellKnown: item && { scheme: item.scheme, upto: item.upto },
  };
}

describe("POST /v1/llm/chat paid with upto, through the local facilitator", () => {
  let provider: FakeProvider;
  let service: TestService;
  const chatUrl = () => `${service.url}/v1/llm/chat`;

  before(async () => {
    provider = await startFakeProvider();
    const env = { ...ENV, LLM_BASE_URL: provider.baseUrl };
    service = await startTestService(env, [
      llmFamily(loadConfig({ LOG_LEVEL: "silent", ...env })),
      receiptsFamily(),
    ]);
  });
  after(async () => {
    await service.stop();
    await provider.close();
  });

  async function fundedBuyer() {
    const buyer = newBuyer();
    await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
    const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
    return { buyer, balance };
  }

  const rowsOf = async (address: string) =>
    (await service.store.ledger.list()).filter((r) => r.payer?.toLowerCase() === address.toLowerCase());

  it("the 402 offers upto beside exact: the same maximum, Permit2, the facilitator's address", async () => {
    const response = await post(chatUrl(), hello);
    assert.equal(response.status, 402);
    const accepts = decodeBase64Json(response.headers.get("payment-required")).accepts as Array<{
      scheme: string;
      network: string;
      amount: string;
      extra: Record<string, unknown>;
    }>;
    assert.deepEqual(
      accepts.map((a) => `${a.scheme} ${a.network} ${a.amount}`),
      [`exact eip155:8453 ${HELLO_MAX_ATOMIC}`, `upto eip155:8453 ${HELLO_MAX_ATOMIC}`],
    );
    assert.match(
      ((await response.json()) as { message: string }).message,
      /costs 0\.008095 USD.*upto scheme, that is the most it costs/,
    );
    assert.equal(accepts[1]?.extra.assetTransferMethod, "permit2");
    assert.equal(accepts[1]?.extra.facilitatorAddress, LOCAL_FACILITATOR_ADDRESS);
  });

  it("/openapi.json and /.well-known/x402 declare upto beside exact, once payments are ready", async () => {
    await service.paymentsReady;
    assert.deepEqual(await declaredSchemes(service.url), {
      openapi: ["exact eip155:8453", "upto eip155:8453"],
      wellKnown: { scheme: "exact", upto: { networks: ["eip155:8453"] } },
    });
  });

  it("/v1/llm/models states the price under both schemes", async () => {
    const models = await fetch(`${service.url}/v1/llm/models`);
    assert.equal(models.status, 200);
    const body = (await models.json()) as { pricing: { formula: string; schemes: Record<string, string> } };
    assert.match(body.pricing.formula, /^exact: .*upto/);
    assert.deepEqual(Object.keys(body.pricing.schemes), ["exact", "upto"]);
  });

  it("@x402/fetch with the upto client is charged exactly the used tokens' price, with a receipt of them", async () => {
    provider.behaviour = { kind: "answer", content: "Hello! How can I help?" };
    const { buyer, balance } = await fundedBuyer();
    const before = await balance();

    const response = await post(chatUrl(), hello, uptoPayingFetch(buyer));
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const body = JSON.parse(text) as ChatBody;
    assert.deepEqual(body.x402, {
      scheme: "upto",
      priceUsd: "0.005039",
      maxPriceUsd: "0.008095",
      billedInputTokens: 20,
      billedOutputTokens: 3,
      maxOutputTokens: 1024,
      callId: (body.x402 as { callId?: string }).callId,
    });

    const header = response.headers.get("payment-response") as string;
    const settlement = decodePaymentResponseHeader(header);
    assert.equal(settlement.success, true);
    assert.equal(settlement.amount, HELLO_USED_ATOMIC);
    assert.equal(before - (await balance()), BigInt(HELLO_USED_ATOMIC));

    const rows = await rowsOf(buyer.address);
    assert.equal(rows.length, 1);
    assert.deepEqual(
      [rows[0]?.sku, rows[0]?.state, rows[0]?.amount],
      ["llm.chat", "settled", HELLO_USED_ATOMIC],
    );
    assert.equal(rows[0]?.transaction, settlement.transaction);

    // The signed receipt states the amount and the token counts beside the body's digest, and verifies.
    const jws = (
      settlement.extensions?.["offer-receipt"] as { info: { receipt: { signature: string } } } | undefined
    )?.info.receipt.signature as string;
    const verify = await fetch(
      `${service.url}/v1/receipts/verify?receipt=${encodeURIComponent(jws)}&sha256=${sha256(text)}`,
    );
    const checked = (await verify.json()) as {
      error?: string;
      valid: boolean;
      responseMatches: boolean;
      receipt: { amount: string; usage: Record<string, number>; responseSha256: string };
    };
    assert.equal(checked.valid, true, JSON.stringify(checked));
    assert.equal(checked.responseMatches, true);
    assert.equal(checked.receipt.amount, HELLO_USED_ATOMIC);
    assert.deepEqual(checked.receipt.usage, { promptTokens: 20, completionTokens: 3 });
  });

  it("reasoning tokens are billed: they are part of the provider's completion_tokens", async () => {
    // The recorded OpenAI reasoning answer: prompt_tokens 31, completion_tokens 203 of which 192 reasoning.
    // 31 × 1.5 + 203 × 3 = 655.5 → 656; + 5000.
    provider.behaviour = { kind: "openai" };
    const { buyer, balance } = await fundedBuyer();
    const before = await balance();
    const response = await post(chatUrl(), hello, uptoPayingFetch(buyer));
    const body = (await response.json()) as ChatBody;
    assert.equal(response.status, 200);
    assert.equal(body.x402.priceUsd, "0.005656");
    assert.equal(body.x402.reasoningTokens, 192);
    assert.equal(body.x402.billedOutputTokens, 203);
    assert.equal(
      decodePaymentResponseHeader(response.headers.get("payment-response") as string).amount,
      "5656",
    );
    assert.equal(before - (await balance()), 5656n);
  });

  it("exact still charges the price fixed before the run, and says so", async () => {
    provider.behaviour = { kind: "answer", content: "Hello! How can I help?" };
    const { buyer, balance } = await fundedBuyer();
    const before = await balance();
    const response = await post(chatUrl(), hello, payingFetch(buyer));
    const body = (await response.json()) as ChatBody;
    assert.equal(response.status, 200);
    assert.equal(body.x402.scheme, "exact");
    assert.equal(body.x402.priceUsd, "0.008095");
    assert.equal(body.x402.billedOutputTokens, 1024);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") as string);
    assert.equal(settlement.amount, HELLO_MAX_ATOMIC);
    assert.equal(before - (await balance()), BigInt(HELLO_MAX_ATOMIC));
    assert.equal((await rowsOf(buyer.address))[0]?.amount, HELLO_MAX_ATOMIC);
  });

  it("a failed upstream settles nothing: 502, no PAYMENT-RESPONSE, the balance untouched", async () => {
    provider.behaviour = { kind: "status", status: 500, body: '{"error":{"message":"boom"}}' };
    const { buyer, balance } = await fundedBuyer();
    const before = await balance();
    const response = await post(chatUrl(), hello, uptoPayingFetch(buyer));
    assert.equal(response.status, 502);
    const body = (await response.json()) as { charged: boolean };
    assert.equal(body.charged, false);
    assert.equal(response.headers.get("payment-response"), null);
    assert.equal(await balance(), before);
    assert.deepEqual(
      (await rowsOf(buyer.address)).filter((r) => r.state === "settled"),
      [],
    );
  });
});

describe("POST /v1/llm/chat with a remote facilitator whose /supported lacks upto", () => {
  let stub: StubFacilitator;
  let service: TestService;

  before(async () => {
    stub = await startStubFacilitator();
    const env = {
      ...ENV,
      LLM_BASE_URL: "http://127.0.0.1:9",
      FACILITATOR_URL: stub.url,
      NETWORKS: "base",
      PAY_TO_EVM: "0x1111111111111111111111111111111111111111",
    };
    service = await startTestService(env, [llmFamily(loadConfig({ LOG_LEVEL: "silent", ...env }))]);
  });
  after(async () => {
    await service.stop();
    await stub.close();
  });

  it("declares exact only in /openapi.json and /.well-known/x402", async () => {
    await service.paymentsReady;
    assert.deepEqual(await declaredSchemes(service.url), {
      openapi: ["exact eip155:8453"],
      wellKnown: { scheme: "exact", upto: undefined },
    });
  });

  it("offers exact only", async () => {
    const response = await post(`${service.url}/v1/llm/chat`, hello);
    assert.equal(response.status, 402);
    const accepts = decodeBase64Json(response.headers.get("payment-required")).accepts as Array<{
      scheme: string;
    }>;
    assert.deepEqual(
      accepts.map((a) => a.scheme),
      ["exact"],
    );
    const body = (await response.json()) as { accepts: Array<{ scheme: string }> };
    assert.deepEqual(
      body.accepts.map((a) => a.scheme),
      ["exact"],
    );
  });
});
