// Prompt tokens counted with gpt-tokenizer in the model's own BPE encoding (a per-model setting), with the
// chat framing OpenAI documents for its chat models: 3 tokens around each message plus its role, and 3
// that prime the reply. Encodings load once per process, synchronously, the first time a model needs one.
import { createRequire } from "node:module";

export const ENCODINGS = ["o200k_base", "o200k_harmony", "cl100k_base", "p50k_base", "r50k_base"] as const;
export type EncodingName = (typeof ENCODINGS)[number];

export const TOKENS_PER_MESSAGE = 3;
export const REPLY_PRIMING_TOKENS = 3;

export interface ChatMessage {
  role: string;
  content: string;
}

interface BpeEncoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

const requireEncoding = createRequire(import.meta.url);
const encodings = new Map<EncodingName, BpeEncoding>();

/** Callers' text is counted as text: "<|endoftext|>" typed by a user is ordinary characters, not a special token. */
const SPECIAL_AS_TEXT = { disallowedSpecial: new Set<string>() };

function encoding(name: EncodingName): BpeEncoding {
  let loaded = encodings.get(name);
  if (!loaded) {
    loaded = requireEncoding(`gpt-tokenizer/encoding/${name}`) as BpeEncoding;
    encodings.set(name, loaded);
  }
  return loaded;
}

/** Texts shorter than this are cheaper to count again than to look up. */
const CACHE_MIN_CHARS = 24;
/** What one cache entry costs beyond its characters (map slot, key and number), in character-equivalents. */
const ENTRY_OVERHEAD_CHARS = 64;

/**
 * Counts tokens in one encoding. Long texts are remembered (least recently used first out, bounded by
 * characters): the paid retry repeats the 402's body, and conversations resend their history each turn.
 */
export class TokenCounter {
  readonly encodingName: EncodingName;
  private readonly bpe: BpeEncoding;
  private readonly cache = new Map<string, number>();
  private cachedChars = 0;
  private readonly maxCachedChars: number;

  constructor(encodingName: EncodingName, maxCachedChars = 8_000_000) {
    this.encodingName = encodingName;
    this.bpe = encoding(encodingName);
    this.maxCachedChars = maxCachedChars;
  }

  count(text: string): number {
    if (text.length < CACHE_MIN_CHARS) return this.countUncached(text);
    const known = this.cache.get(text);
    if (known !== undefined) {
      this.cache.delete(text);
      this.cache.set(text, known);
      return known;
    }
    const counted = this.countUncached(text);
    if (text.length <= this.maxCachedChars) {
      this.cache.set(text, counted);
      this.cachedChars += text.length + ENTRY_OVERHEAD_CHARS;
      for (const oldest of this.cache.keys()) {
        if (this.cachedChars <= this.maxCachedChars) break;
        this.cache.delete(oldest);
        this.cachedChars -= oldest.length + ENTRY_OVERHEAD_CHARS;
      }
    }
    return counted;
  }

  private countUncached(text: string): number {
    return text.includes("<|") ? this.bpe.countTokens(text, SPECIAL_AS_TEXT) : this.bpe.countTokens(text);
  }

  /** One message as the model sees it: framing, role and content. */
  messageTokens(message: ChatMessage): number {
    return TOKENS_PER_MESSAGE + this.count(message.role) + this.count(message.content);
  }

  /** A whole prompt: every message plus the tokens that prime the reply. */
  promptTokens(messages: readonly ChatMessage[]): number {
    let total = REPLY_PRIMING_TOKENS;
    for (const message of messages) total += this.messageTokens(message);
    return total;
  }
}

const counters = new Map<EncodingName, TokenCounter>();

/** The process-wide counter of one encoding (its cache is shared by every model using the encoding). */
export function tokenCounter(name: EncodingName): TokenCounter {
  let counter = counters.get(name);
  if (!counter) {
    counter = new TokenCounter(name);
    counters.set(name, counter);
  }
  return counter;
}
