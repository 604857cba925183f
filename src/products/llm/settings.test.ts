import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../config.ts";
import { llmFamily } from "./index.ts";
import { DEFAULT_INSTRUCTIONS } from "./instructions.ts";
import { formatRate, loadLlmSettings, rateToE6, upstreamConfigured } from "./settings.ts";

function settingsOf(env: Record<string, string>) {
  return loadLlmSettings(loadConfig({ LOG_LEVEL: "silent", ...env }));
}

function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    settingsOf(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be refused`);
}

describe("llm settings", () => {
  it("defaults: two OpenAI models at the spec's rates, the default instructions, OpenAI's base URL", () => {
    const s = settingsOf({});
    assert.deepEqual(
      s.models.map((m) => [m.id, m.upstreamId, m.encoding, m.inputPerMillionUsd, m.outputPerMillionUsd]),
      [
        ["gpt-4.1-mini", "gpt-4.1-mini", "o200k_base", "1.50", "3.00"],
        ["gpt-4o-mini", "gpt-4o-mini", "o200k_base", "1.50", "3.00"],
      ],
    );
    assert.equal(s.models[0]?.inputE6, 1_500_000n);
    assert.equal(s.models[0]?.outputE6, 3_000_000n);
    assert.equal(s.defaultModel.id, "gpt-4.1-mini");
    assert.equal(s.instructions, DEFAULT_INSTRUCTIONS);
    assert.equal(s.instructionsSource, "default");
    assert.equal(s.timeoutMs, 120_000);
    assert.equal(s.baseUrl, "https://api.openai.com/v1");
    assert.equal(s.apiKey, undefined);
    assert.equal(upstreamConfigured(s), false);
  });

  it("reads models, default model, key, base URL and timeout from the environment", () => {
    const s = settingsOf({
      LLM_MODELS: JSON.stringify([
        { id: "small", upstreamId: "meta-llama/Llama-3.1-8B-Instruct", encoding: "cl100k_base" },
        { id: "large", inputPerMillionUsd: 2.5, outputPerMillionUsd: "10", maxOutputTokens: 8192 },
      ]),
      LLM_DEFAULT_MODEL: "large",
      LLM_API_KEY: "sk-test",
      LLM_BASE_URL: "http://127.0.0.1:8000/v1/",
      LLM_TIMEOUT_MS: "30000",
    });
    assert.deepEqual(
      s.models.map((m) => [m.id, m.upstreamId, m.encoding, m.inputPerMillionUsd, m.outputPerMillionUsd]),
      [
        ["small", "meta-llama/Llama-3.1-8B-Instruct", "cl100k_base", "1.50", "3.00"],
        ["large", "large", "o200k_base", "2.50", "10.00"],
      ],
    );
    assert.equal(s.models[1]?.maxOutputTokens, 8192);
    assert.equal(s.defaultModel.id, "large");
    assert.equal(s.apiKey, "sk-test");
    assert.equal(s.baseUrl, "http://127.0.0.1:8000/v1");
    assert.equal(s.timeoutMs, 30_000);
    assert.equal(upstreamConfigured(s), true);
    // A self-hosted server without a key still counts as configured.
    assert.equal(upstreamConfigured(settingsOf({ LLM_BASE_URL: "http://127.0.0.1:11434/v1" })), true);
  });

  it("refuses a bad LLM_MODELS with a ConfigError saying what is wrong", () => {
    const cases: Array<[unknown, RegExp]> = [
      ["not json", /JSON array of models/],
      [[], /at least one model/],
      [{ id: "x" }, /expected array/],
      [[{ upstreamId: "x" }], /0\.id/],
      [[{ id: "has space" }], /0\.id: must be 1 to 100 letters/],
      [[{ id: "a", encoding: "llama3" }], /0\.encoding/],
      [[{ id: "a", inputPerMillionUsd: -1 }], /0\.inputPerMillionUsd: must be a non-negative USD amount/],
      [[{ id: "a", outputPerMillionUsd: "0.0000001" }], /at most 6 decimals/],
      [[{ id: "a", maxOutputTokens: 0 }], /0\.maxOutputTokens/],
      [[{ id: "a", temperature: 1 }], /Unrecognized key/],
      [[{ id: "a" }, { id: "a" }], /lists the model "a" twice/],
      [[{ id: "a", maxOutputTokens: 5000, contextTokens: 4000 }], /maxOutputTokens exceeds contextTokens/],
    ];
    for (const [value, message] of cases) {
      const raw = typeof value === "string" ? value : JSON.stringify(value);
      const error = configErrorOf({ LLM_MODELS: raw });
      assert.equal(error.variable, "LLM_MODELS", raw);
      assert.match(error.message, message, raw);
    }
  });

  it("refuses an unknown default model, a bad base URL and an out-of-range timeout", () => {
    const unknown = configErrorOf({ LLM_DEFAULT_MODEL: "gpt-9" });
    assert.equal(unknown.variable, "LLM_DEFAULT_MODEL");
    assert.match(unknown.message, /gpt-4\.1-mini, gpt-4o-mini/);
    assert.equal(configErrorOf({ LLM_BASE_URL: "ftp://example.com" }).variable, "LLM_BASE_URL");
    assert.equal(configErrorOf({ LLM_TIMEOUT_MS: "999" }).variable, "LLM_TIMEOUT_MS");
    assert.equal(configErrorOf({ LLM_TIMEOUT_MS: "fast" }).variable, "LLM_TIMEOUT_MS");
  });

  it("keeps the timeout inside the payment authorisation's lifetime, with time left to settle", () => {
    // MAX_TIMEOUT_SECONDS 60 (facilitator timeout 12 s): the handler budget is 60 s - 2 × 12 s - 10 s = 26 s.
    const error = configErrorOf({ MAX_TIMEOUT_SECONDS: "60", LLM_TIMEOUT_MS: "50000" });
    assert.equal(error.variable, "LLM_TIMEOUT_MS");
    assert.match(error.message, /1000 to 26000/);
    assert.equal(settingsOf({ MAX_TIMEOUT_SECONDS: "60" }).timeoutMs, 26_000);
  });

  it("takes instructions inline or from a file, never both", () => {
    assert.equal(settingsOf({ LLM_INSTRUCTIONS: "Be brief." }).instructions, "Be brief.");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "llm-settings-"));
    try {
      const file = path.join(dir, "instructions.txt");
      fs.writeFileSync(file, "  Answer in French.\n");
      const s = settingsOf({ LLM_INSTRUCTIONS_FILE: file });
      assert.equal(s.instructions, "Answer in French.");
      assert.equal(s.instructionsSource, "LLM_INSTRUCTIONS_FILE");
      assert.equal(
        configErrorOf({ LLM_INSTRUCTIONS_FILE: file, LLM_INSTRUCTIONS: "x" }).variable,
        "LLM_INSTRUCTIONS_FILE",
      );
      assert.match(
        configErrorOf({ LLM_INSTRUCTIONS_FILE: path.join(dir, "missing.txt") }).message,
        /cannot be read/,
      );
      assert.equal(configErrorOf({ LLM_INSTRUCTIONS: "x".repeat(100_001) }).variable, "LLM_INSTRUCTIONS");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the factory validates too: a bad variable stops the family from being built", () => {
    assert.throws(
      () => llmFamily(loadConfig({ LOG_LEVEL: "silent", LLM_MODELS: "[]" })),
      (error: unknown) => error instanceof ConfigError && error.variable === "LLM_MODELS",
    );
  });

  it("rates are exact decimals in millionths", () => {
    assert.equal(rateToE6("1.5"), 1_500_000n);
    assert.equal(rateToE6("0.000001"), 1n);
    assert.equal(rateToE6("12"), 12_000_000n);
    assert.equal(rateToE6("1e-7"), undefined);
    assert.equal(rateToE6("-1"), undefined);
    assert.equal(formatRate(1_500_000n), "1.50");
    assert.equal(formatRate(125_000n), "0.125");
    assert.equal(formatRate(3_000_000n), "3.00");
  });
});
