// End to end on loopback: the llm family in a real service, a paying x402 buyer, the local facilitator and
// a loopback OpenAI-compatible provider. What the buyer pays is checked against hand-computed prices.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  decodeBase64Json,
  newBuyer,
  payingFetch,
  startTestService,
  type TestService,
} from "../../../test/harness.ts";
import { loadConfig } from "../../config.ts";
import { creditWallet } from "../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../x402/shared/networks.ts";
import { type FakeProvider, startFakeProvider } from "./harness.test-helper.ts";
import { llmFamily } from "./index.ts";

let provider: FakeProvider;
let service: TestService;

before(async () => {
  provider = await startFakeProvider();
  const env = {
    UPSTREAMS: "live",
    LLM_BASE_URL: provider.baseUrl,
    LLM_API_KEY: "sk-e2e",
    LLM_INSTRUCTIONS: "Be brief.",
    LLM_TIMEOUT_MS: "1000",
  };
  service = await startTestService(env, [llmFamily(loadConfig({ LOG_LEVEL: "silent", ...env }))]);
});
after(async () => {
  await service.stop();
  await provider.close();
});

const chatUrl = () => `${service.url}/v1/llm/chat`;

function post(body: unknown, fetchImpl: typeof fetch = fetch): Promise<Response> {
  return fetchImpl(chatUrl(), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A funded buyer and their balance, in atomic units. */
async function fundedBuyer() {
  const buyer = newBuyer();
  await creditWallet(service.store, NETWORKS.base, buyer.address, "1");
  const balance = () => service.store.localUsdc.balance(NETWORKS.base.caip2, buyer.address);
  return { buyer, balance };
}

async function ledgerRowsFor(address: string) {
  return (await service.store.ledger.list()).filter((r) => r.payer?.toLowerCase() === address.toLowerCase());
}

const hello = { messages: [{ role: "user", content: "Hello" }] };
// By hand (pricing.test.ts): prompt 15 tokens × 1.5 + 1024 × 3 = 3094.5 → 3095; + 5000 = 8095 atomic.
const HELLO_ATOMIC = "8095";

describe("POST /v1/llm/chat, paid", () => {
  it("the 402 asks the hand-computed price for this body", async () => {
    const response = await post(hello);
    assert.equal(response.status, 402);
    const required = decodeBase64Json(response.headers.get("payment-required"));
    const accepts = required.accepts as Array<{ amount: string; network: string }>;
    assert.equal(accepts[0]?.amount, HELLO_ATOMIC);
    const body = (await response.json()) as { message: string };
    assert.match(body.message, /costs 0\.008095 USD/);
    // Another body, another price: 4 messages, max_tokens 100 → 42 × 1.5 + 300 = 363; + 5000.
    const conversation = await post({
      max_tokens: 100,
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "What is the capital of France?" },
        { role: "assistant", content: "Paris." },
        { role: "user", content: "Hello" },
      ],
    });
    const conversationAccepts = decodeBase64Json(conversation.headers.get("payment-required"))
      .accepts as Array<{
      amount: string;
    }>;
    assert.equal(conversationAccepts[0]?.amount, "5363");
    assert.equal(provider.chatCalls().length, 0, "nothing reaches the model before payment");
  });

  it("a buyer pays exactly that price, once, and gets the completion with its billing", async () => {
    provider.behaviour = { kind: "answer", content: "Hello! How can I help?" };
    const { buyer, balance } = await fundedBuyer();
    const before = await balance();
    const callsBefore = provider.chatCalls().length;

    const response = await post(hello, payingFetch(buyer));
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      id: string;
      object: string;
      model: string;
      choices: Array<{ message: { content: string } }>;
      x402: { priceUsd: string; billedInputTokens: number; maxOutputTokens: number; callId: string };
    };
    assert.match(body.id, /^llm_[0-9a-f]{24}$/);
    assert.equal(body.object, "chat.completion");
    assert.equal(body.model, "gpt-4.1-mini");
    assert.equal(body.choices[0]?.message.content, "Hello! How can I help?");
    assert.equal(body.x402.priceUsd, "0.008095");
    assert.equal(body.x402.billedInputTokens, 15);
    assert.equal(body.x402.maxOutputTokens, 1024);
    assert.ok(response.headers.get("payment-response"));

    assert.equal(provider.chatCalls().length, callsBefore + 1, "the model ran once");
    const rows = await ledgerRowsFor(buyer.address);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.sku, "llm.chat");
    assert.equal(rows[0]?.state, "settled");
    assert.equal(rows[0]?.amount, HELLO_ATOMIC);
    assert.equal(before - (await balance()), BigInt(HELLO_ATOMIC));
  });

  for (const [label, behaviour] of [
    ["HTTP 500", { kind: "status", status: 500, body: '{"error":{"message":"boom"}}' }],
    ["a timeout", { kind: "hang", ms: 2500 }],
    ["garbage JSON", { kind: "garbage" }],
  ] as const) {
    it(`an upstream failure (${label}) is a 502 and the buyer is not charged`, async () => {
      provider.behaviour = behaviour;
      const { buyer, balance } = await fundedBuyer();
      const before = await balance();
      const response = await post(hello, payingFetch(buyer));
      assert.equal(response.status, 502);
      const body = (await response.json()) as { error: string; charged: boolean; choices?: unknown };
      assert.equal(body.error, "upstream_unavailable");
      assert.equal(body.charged, false);
      assert.equal(body.choices, undefined);
      assert.equal(response.headers.get("payment-response"), null);
      const charged = (await ledgerRowsFor(buyer.address)).filter((r) => r.state === "settled");
      assert.deepEqual(charged, [], "no settled ledger row");
      assert.equal(await balance(), before);
    });
  }
});

describe("POST /v1/llm/chat, refused before payment", () => {
  async function expect400(body: unknown, parameter: string) {
    const response = await post(body);
    const answer = (await response.json()) as {
      parameter: string;
      charged: boolean;
      message: string;
      models?: string[];
    };
    assert.equal(response.status, 400, JSON.stringify(answer));
    assert.equal(answer.parameter, parameter);
    assert.equal(answer.charged, false);
    assert.equal(response.headers.get("payment-required"), null);
    return answer;
  }

  it("names the field at fault", async () => {
    await expect400("not json", "body");
    await expect400({ max_tokens: 10 }, "messages");
    await expect400({ messages: [{ role: "tool", content: "x" }] }, "messages.0.role");
    await expect400({ messages: [{ role: "user", content: [{ type: "image_url" }] }] }, "messages.0.content");
    await expect400({ ...hello, max_tokens: 32001 }, "max_tokens");
    await expect400({ ...hello, temperature: 3 }, "temperature");
    await expect400({ ...hello, stream: true }, "stream");
    const unknown = await expect400({ ...hello, model: "gpt-9" }, "model");
    assert.deepEqual(unknown.models, ["gpt-4.1-mini", "gpt-4o-mini"]);
    await expect400({ ...hello, model: "gpt-4o-mini", max_tokens: 20000 }, "max_tokens");
  });

  it("answers 413 beyond 256 KB, and accepts 500 messages just under it", async () => {
    const big = { messages: [{ role: "user", content: "x".repeat(256 * 1024) }] };
    const tooLarge = await post(big);
    assert.equal(tooLarge.status, 413);
    const body = (await tooLarge.json()) as { error: string; charged: boolean };
    assert.equal(body.error, "body_too_large");
    assert.equal(body.charged, false);
    assert.equal(tooLarge.headers.get("payment-required"), null);

    const full = {
      messages: Array.from({ length: 500 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `${i}: ${"lorem ipsum dolor sit amet ".repeat(18)}`,
      })),
    };
    assert.ok(JSON.stringify(full).length < 256 * 1024);
    const accepted = await post(full);
    assert.equal(accepted.status, 402);
    await accepted.body?.cancel();
  });
});

describe("the llm family's free and catalog surfaces", () => {
  it("GET /v1/llm/models answers without payment", async () => {
    const response = await fetch(`${service.url}/v1/llm/models`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      defaultModel: string;
      upstream: { mode: string; configured: boolean };
    };
    assert.equal(body.defaultModel, "gpt-4.1-mini");
    assert.deepEqual(body.upstream.mode, "live");
    assert.equal(body.upstream.configured, true);
  });

  it("the catalog lists the chat as dynamically priced, from its minimum, with the formula", async () => {
    const catalog = (await (await fetch(`${service.url}/catalog.json`)).json()) as {
      products: Array<{
        sku: string;
        method: string;
        mode: string;
        pricing?: { dynamic: boolean; minimumUsd: string; formula: string };
      }>;
    };
    const chat = catalog.products.find((p) => p.sku === "llm.chat");
    assert.equal(chat?.method, "POST");
    assert.equal(chat?.mode, "paid");
    assert.equal(chat?.pricing?.dynamic, true);
    assert.equal(chat?.pricing?.minimumUsd, "0.005024");
    assert.match(chat?.pricing?.formula ?? "", /about 7 tokens of service instructions/);
    assert.equal(catalog.products.find((p) => p.sku === "llm.models")?.mode, "free");
  });
});
