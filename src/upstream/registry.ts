// One client per upstream, shared by every adapter that talks to it, so its limits hold process-wide.

import { type BudgetBook, LocalBudgetBook } from "../budgets/booking.ts";
import { type Config, upstreamBaseUrl } from "../config.ts";
import type { UpstreamBudgetRepository } from "../store/upstream-budgets.ts";
import { UpstreamClient, type UpstreamObserver, type UpstreamSpec } from "./client.ts";
import type { RecordingIndex } from "./recordings.ts";

export class UpstreamRegistry {
  readonly mode: "live" | "replay";
  private readonly clients = new Map<string, UpstreamClient>();
  private readonly config: Config;
  private readonly replay: RecordingIndex | undefined;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly budgets: UpstreamBudgetRepository | undefined;
  private readonly observer: UpstreamObserver | undefined;
  /** Windows and pauses of this process when no store is given or it cannot answer. */
  private readonly localBudgets: BudgetBook = new LocalBudgetBook();

  /** With `budgets` (the store's), each upstream's concurrency, spacing, windows and pauses hold across every node. */
  constructor(
    config: Config,
    replay: RecordingIndex | undefined,
    fetchImpl?: typeof fetch,
    budgets?: UpstreamBudgetRepository,
    observer?: UpstreamObserver,
  ) {
    this.config = config;
    this.budgets = budgets;
    this.observer = observer;
    this.mode = config.upstreams;
    this.replay = config.upstreams === "replay" ? replay : undefined;
    this.fetchImpl = fetchImpl;
  }

  get userAgent(): string {
    return `paycall/0.1 (+${this.config.publicUrl}; ${this.config.contact})`;
  }

  client(spec: UpstreamSpec): UpstreamClient {
    let client = this.clients.get(spec.name);
    if (!client) {
      client = new UpstreamClient(spec, {
        baseUrl: upstreamBaseUrl(this.config, spec.name, spec.defaultBaseUrl),
        userAgent: this.userAgent,
        replay: this.replay,
        fetchImpl: this.fetchImpl,
        localBudgets: this.localBudgets,
        observer: this.observer,
        ...(this.budgets
          ? {
              reserveStart: this.budgets.reserve.bind(this.budgets),
              budgets: this.budgets,
              slots: this.budgets.slots,
            }
          : {}),
      });
      this.clients.set(spec.name, client);
    }
    return client;
  }
}
