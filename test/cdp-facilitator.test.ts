// Coinbase's facilitator authenticates each call with a CDP JWT made for it. A loopback facilitator that
// verifies those JWTs (signature with the public key, method + host + path, expiry) serves a paid call.
import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { ConfigError, loadConfig } from "../src/config.ts";
import { createFacilitatorClient } from "../src/x402/seller/resource-server.ts";
import { CDP_FACILITATOR_URL } from "../src/x402/shared/cdp-credentials.ts";
import { newBuyer, payingFetch, startTestService, type TestService } from "./harness.ts";
import { type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { testFamily } from "./test-family.ts";

const PAY_TO = "0x00000000000000000000000000000000000000aa";
const KEY_ID = "organizations/0000/apiKeys/test-key";

function ed25519Key(): { secret: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return { secret: Buffer.concat([seed, pub]).toString("base64"), publicKey };
}

function ecKey(): { secret: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  // The SEC1 form older CDP key files hold, with newlines escaped as in a .env file.
  const pem = privateKey.export({ format: "pem", type: "sec1" }).toString();
  return { secret: pem.replace(/\n/g, "\\n"), publicKey };
}

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ DATA_DIR: "/tmp/paycall-cdp-test", ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail("expected a ConfigError");
}

describe("configuration", () => {
  test("FACILITATOR=cdp selects Coinbase's URL and needs both key settings", () => {
    const key = ed25519Key();
    const config = loadConfig({
      FACILITATOR: "cdp",
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: key.secret,
      PAY_TO_EVM: PAY_TO,
    });
    assert.equal(config.facilitator.kind === "remote" && config.facilitator.url, CDP_FACILITATOR_URL);
    assert.equal(
      configError({ FACILITATOR: "cdp", CDP_API_KEY_ID: KEY_ID, PAY_TO_EVM: PAY_TO }).variable,
      "CDP_API_KEY_SECRET",
    );
    assert.equal(
      configError({ FACILITATOR: "cdp", CDP_API_KEY_SECRET: key.secret, PAY_TO_EVM: PAY_TO }).variable,
      "CDP_API_KEY_ID",
    );
  });

  test("a key in neither format is refused at start, and no error or dump shows the secret", () => {
    const notAKey = "c2VjcmV0LXNlY3JldC1zZWNyZXQ="; // base64, but 21 bytes
    const error = configError({
      FACILITATOR: "cdp",
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: notAKey,
      PAY_TO_EVM: PAY_TO,
    });
    assert.equal(error.variable, "CDP_API_KEY_SECRET");
    assert.match(error.message, /Ed25519/);
    assert.ok(!error.message.includes(notAKey));
    const pem = "-----BEGIN RSA PRIVATE KEY-----\\nnot really\\n-----END RSA PRIVATE KEY-----";
    const pemError = configError({
      FACILITATOR: "cdp",
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: pem,
      PAY_TO_EVM: PAY_TO,
    });
    assert.ok(!pemError.message.includes("not really"));

    const key = ed25519Key();
    const config = loadConfig({
      FACILITATOR: "cdp",
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: key.secret,
      PAY_TO_EVM: PAY_TO,
    });
    const { env: _env, ...rest } = config;
    assert.ok(!JSON.stringify(rest).includes(key.secret));
    assert.ok(!inspect(rest, { depth: 10 }).includes(key.secret));
  });

  test("an Ed25519 key whose public half is not its seed's is refused", () => {
    const a = Buffer.from(ed25519Key().secret, "base64");
    const b = Buffer.from(ed25519Key().secret, "base64");
    const mixed = Buffer.concat([a.subarray(0, 32), b.subarray(32)]).toString("base64");
    const error = configError({
      FACILITATOR: "cdp",
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: mixed,
      PAY_TO_EVM: PAY_TO,
    });
    assert.match(error.message, /public half/);
  });

  test("the handler, verify and settle must fit in maxTimeoutSeconds", () => {
    const fits = loadConfig({ MAX_TIMEOUT_SECONDS: "30" });
    assert.equal(fits.facilitatorTimeoutMs, 6000);
    assert.equal(fits.handlerBudgetMs, 30_000 - 12_000 - 10_000);
    assert.equal(loadConfig({}).handlerBudgetMs, 300_000 - 120_000 - 10_000);
    assert.equal(loadConfig({ FACILITATOR_TIMEOUT_MS: "3000" }).handlerBudgetMs, 300_000 - 6000 - 10_000);
    const error = configError({ MAX_TIMEOUT_SECONDS: "30", FACILITATOR_TIMEOUT_MS: "10000" });
    assert.equal(error.variable, "FACILITATOR_TIMEOUT_MS");
    assert.match(error.message, /MAX_TIMEOUT_SECONDS/);
  });
});

for (const [name, makeKey] of [
  ["Ed25519 (base64)", ed25519Key],
  ["EC (PEM)", ecKey],
] as const) {
  describe(`a CDP-compatible facilitator with an ${name} key`, () => {
    let stub: StubFacilitator;
    let service: TestService;
    const key = makeKey();
    before(async () => {
      stub = await startStubFacilitator();
      stub.requireJwt = { keyId: KEY_ID, publicKey: key.publicKey };
      service = await startTestService(
        {
          FACILITATOR_URL: `${stub.url}/platform/v2/x402`,
          CDP_API_KEY_ID: KEY_ID,
          CDP_API_KEY_SECRET: key.secret,
          PAY_TO_EVM: PAY_TO,
          FACILITATOR_TIMEOUT_MS: "3000",
        },
        [testFamily],
      );
    });
    after(async () => {
      await service.stop();
      await stub.close();
    });

    test("supported, verify and settle each carry a fresh JWT for their own method, host and path", async () => {
      const response = await payingFetch(newBuyer())(`${service.url}/v1/test/item?mode=ok`);
      assert.equal(response.status, 200);
      assert.equal(
        decodePaymentResponseHeader(response.headers.get("payment-response") as string).success,
        true,
      );
      assert.deepEqual(stub.refused, []);
      const host = new URL(stub.url).host;
      const uris = stub.tokens.map((t) => t.uri);
      assert.ok(uris.includes(`GET ${host}/platform/v2/x402/supported`), uris.join(", "));
      assert.ok(uris.includes(`POST ${host}/platform/v2/x402/verify`));
      assert.ok(uris.includes(`POST ${host}/platform/v2/x402/settle`));
      assert.equal(new Set(stub.tokens.map((t) => t.nonce)).size, stub.tokens.length, "one JWT per call");
      for (const token of stub.tokens) assert.equal(token.exp - token.iat, 120);
    });

    test("/health names no secret", async () => {
      const text = await (await fetch(`${service.url}/health`)).text();
      assert.ok(!text.includes(key.secret));
      assert.ok(!text.includes(KEY_ID));
    });
  });
}

test("a key the facilitator does not know is refused by it, and the error shows no secret", async () => {
  const stub = await startStubFacilitator();
  try {
    stub.requireJwt = { keyId: KEY_ID, publicKey: ed25519Key().publicKey };
    const wrong = ed25519Key();
    const config = loadConfig({
      FACILITATOR_URL: `${stub.url}/platform/v2/x402`,
      CDP_API_KEY_ID: KEY_ID,
      CDP_API_KEY_SECRET: wrong.secret,
      PAY_TO_EVM: PAY_TO,
    });
    const error = await createFacilitatorClient(config)
      .getSupported()
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    assert.ok(error, "the facilitator refused the call");
    assert.match(error.message, /401/);
    assert.ok(!error.message.includes(wrong.secret));
    assert.deepEqual(stub.refused, ["GET /platform/v2/x402/supported: bad signature"]);
  } finally {
    await stub.close();
  }
});
