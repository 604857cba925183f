// The market collector: one combined WebSocket trade stream for the five symbols, held by one node at a time.
//
// - Leadership: every node running the worker starts a collector; each renews the lease "market-collector"
//   every leaseRenewMs. Only the holder connects and writes; the others stand by and take over when the
//   lease runs out (or is released when the leader stops).
// - Connection: Node's built-in WebSocket. It answers the server's ping frames with a pong carrying the same
//   payload by itself (RFC 6455; verified in collector.test.ts), which is what Binance requires every 20 s.
//   The browser-style API shows neither pings nor pongs, so liveness is judged by messages: silence for
//   silenceMs on an open connection (or a connect that does not open within it) → reconnect.
// - Reconnects: exponential backoff with jitter after a close or error (Binance allows 300 connection attempts
//   per 5 minutes); proactively before Binance's 24-hour cut-off and on its serverShutdown notice, opening the
//   new connection before the old one is closed so no trade is missed.
// - Writes: the latest tick per symbol and the counters, one document every flushMs when something changed.
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { HandlerContext } from "../../catalog/product.ts";
import { errorText } from "../../json.ts";
import {
  COLLECTOR_LEASE,
  type ConnectionState,
  type MarketSnapshot,
  readSnapshotNow,
  type StoredTick,
  writeSnapshot,
} from "./snapshot.ts";
import { TRADE_STREAMS } from "./symbols.ts";
import { TickBook } from "./tick-book.ts";
import type { Frame } from "./trade-frame.ts";

export interface CollectorOptions {
  streamUrl: string;
  flushMs: number;
  silenceMs: number;
  maxConnectionMs: number;
  leaseTtlMs?: number;
  leaseRenewMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  holderId?: string;
  /** UPSTREAMS=replay: the recorded frames (one per line) to play once instead of connecting. */
  replay?: () => Promise<{ frames: string; source: string }>;
}

interface Connection {
  ws: WebSocket;
  startedAt: number;
  openedAt: number | null;
  lastMessageAt: number | null;
}

type CollectorRole = "standby" | "leader" | "stopped";

const decoder = new TextDecoder();

function newHolderId(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export class MarketCollector {
  readonly holderId: string;
  readonly book = new TickBook();
  role: CollectorRole = "standby";
  connection: ConnectionState = "stopped";
  private readonly ctx: Pick<HandlerContext, "store" | "log">;
  private readonly options: Required<Omit<CollectorOptions, "replay">> & Pick<CollectorOptions, "replay">;
  private current: Connection | null = null;
  private retiring: Connection | null = null;
  private connectedAt: number | null = null;
  private attempts = 0;
  private reconnects = 0;
  private writes = 0;
  private lastError: string | null = null;
  private source: string;
  private recordedSample = false;
  private stateDirty = false;
  private flushing: Promise<void> | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private leaseTimer: NodeJS.Timeout | undefined;
  private leadershipCheck: Promise<void> | null = null;
  private stopped = false;

  constructor(ctx: Pick<HandlerContext, "store" | "log">, options: CollectorOptions) {
    this.ctx = ctx;
    this.options = {
      leaseTtlMs: 15_000,
      leaseRenewMs: 5_000,
      backoffBaseMs: 1_000,
      backoffMaxMs: 60_000,
      holderId: newHolderId(),
      ...options,
    };
    this.holderId = this.options.holderId;
    this.source = options.streamUrl;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.leadershipCheck = this.checkLeadership().finally(() => {
        this.leadershipCheck = null;
        if (!this.stopped) this.leaseTimer = unref(setTimeout(loop, this.options.leaseRenewMs));
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.leaseTimer);
    await this.leadershipCheck;
    const wasLeader = this.role === "leader";
    this.role = "stopped";
    this.clearTimers();
    const closing = [this.current, this.retiring].map((c) => c && closeAndWait(c.ws, 1000));
    this.current = this.retiring = null;
    await Promise.all(closing);
    if (!wasLeader) return;
    await this.flushing;
    this.connection = "stopped";
    await this.flush(true);
    await this.ctx.store.leases
      .release(COLLECTOR_LEASE, this.holderId)
      .catch((error) => this.ctx.log.warn({ err: String(error) }, "market collector: lease release failed"));
  }

  // ------------------------------------------------------------------------------------------ leadership

  private async checkLeadership(): Promise<void> {
    let leader = false;
    try {
      leader = await this.ctx.store.leases.acquire(COLLECTOR_LEASE, this.holderId, this.options.leaseTtlMs);
    } catch (error) {
      this.ctx.log.warn({ err: String(error) }, "market collector: lease renewal failed");
    }
    if (this.stopped) return;
    if (leader && this.role !== "leader") await this.becomeLeader();
    else if (!leader && this.role === "leader") this.stepDown();
  }

  private async becomeLeader(): Promise<void> {
    this.role = "leader";
    this.ctx.log.info({ holder: this.holderId }, "market collector: leading, connecting to the trade stream");
    try {
      const previous = (await readSnapshotNow(this.ctx.store))?.body;
      if (previous) {
        this.book.restore(Object.values(previous.ticks) as StoredTick[], previous.msgs);
        this.writes = previous.writes;
        this.reconnects = previous.reconnects;
      }
    } catch (error) {
      this.ctx.log.warn({ err: String(error) }, "market collector: could not read the previous snapshot");
    }
    if (this.stopped) return;
    this.every(this.options.flushMs, () => void this.flush(false));
    if (this.options.replay) {
      await this.playRecording(this.options.replay);
      return;
    }
    const { silenceMs, maxConnectionMs } = this.options;
    this.every(Math.max(20, Math.min(1000, silenceMs / 4, maxConnectionMs / 4)), () => this.watch());
    this.connect();
  }

  /** Lost the lease (another node holds it): stop connecting and writing at once. */
  private stepDown(): void {
    this.ctx.log.warn({ holder: this.holderId }, "market collector: lost the lease, standing by");
    this.role = "standby";
    this.connection = "stopped";
    this.clearTimers();
    for (const c of [this.current, this.retiring]) c?.ws.close(1000, "standing by");
    this.current = this.retiring = null;
  }

  // ------------------------------------------------------------------------------------------ connection

  private connect(): void {
    if (this.role !== "leader" || this.stopped) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.options.streamUrl);
    } catch (error) {
      this.lastError = `cannot open ${this.options.streamUrl}: ${String(error)}`;
      this.scheduleReconnect();
      return;
    }
    ws.binaryType = "arraybuffer";
    const conn: Connection = { ws, startedAt: Date.now(), openedAt: null, lastMessageAt: null };
    this.current = conn;
    this.setConnection(this.connectedAt === null && this.reconnects === 0 ? "connecting" : "reconnecting");
    ws.onopen = () => {
      if (conn !== this.current) return;
      conn.openedAt = Date.now();
      this.connectedAt = conn.openedAt;
      this.setConnection("connected");
      const old = this.retiring;
      this.retiring = null;
      old?.ws.close(1000, "replaced by a new connection");
    };
    ws.onmessage = (event: MessageEvent) => {
      const now = Date.now();
      conn.lastMessageAt = now;
      const text = typeof event.data === "string" ? event.data : decoder.decode(event.data as ArrayBuffer);
      const frame = this.ingest(text, now);
      if (frame.kind === "shutdown" && conn === this.current) this.rotate("the server announced a shutdown");
    };
    ws.onerror = (event: Event) => {
      // An abandoned or replaced connection's error says nothing about the current one.
      if (conn !== this.current) return;
      const message = (event as { message?: string }).message;
      this.lastError = `stream error${message ? `: ${message}` : ""}`;
    };
    ws.onclose = (event: CloseEvent) => {
      if (conn === this.retiring) this.retiring = null;
      if (conn !== this.current) return;
      this.current = null;
      this.lastError = `stream closed (code ${event.code}${event.reason ? `, ${event.reason}` : ""})`;
      this.ctx.log.warn({ code: event.code, reason: event.reason }, "market collector: stream closed");
      this.scheduleReconnect();
    };
  }

  /** One received frame: parsed into the tick book; the store is written from it in batches. */
  ingest(text: string, now = Date.now()): Frame {
    const frame = this.book.ingest(text, now);
    // A trade means the connection is healthy: the next failure starts the backoff from the beginning.
    if (frame.kind === "trade") this.attempts = 0;
    return frame;
  }

  private scheduleReconnect(): void {
    if (this.role !== "leader" || this.stopped) return;
    this.setConnection("reconnecting");
    const { backoffBaseMs, backoffMaxMs } = this.options;
    const delay = Math.min(backoffMaxMs, backoffBaseMs * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.attempts++;
    this.reconnects++;
    this.later(delay, () => this.connect());
  }

  /** Gives up on a connection that is silent or never opened, and reconnects after the backoff. */
  private abandon(conn: Connection, reason: string): void {
    this.ctx.log.warn({ reason }, "market collector: reconnecting");
    this.lastError = reason;
    if (conn === this.current) this.current = null;
    conn.ws.close(1000, "silent");
    this.scheduleReconnect();
  }

  /** Opens a new connection and closes the current one once the new one is open. */
  private rotate(reason: string): void {
    if (!this.current || this.retiring) return;
    this.ctx.log.info({ reason }, "market collector: renewing the connection");
    this.retiring = this.current;
    this.current = null;
    this.connect();
  }

  private watch(): void {
    const now = Date.now();
    const { silenceMs, maxConnectionMs } = this.options;
    // A connection being replaced that has gone silent is of no more use while its replacement opens.
    const old = this.retiring;
    if (old && now - (old.lastMessageAt ?? old.openedAt ?? old.startedAt) > silenceMs) {
      this.retiring = null;
      old.ws.close(1000, "replaced");
    }
    const conn = this.current;
    if (!conn) return;
    if (conn.openedAt === null) {
      if (now - conn.startedAt > silenceMs) this.abandon(conn, `no connection within ${silenceMs} ms`);
      return;
    }
    const lastHeard = Math.max(conn.openedAt, conn.lastMessageAt ?? 0);
    if (now - lastHeard > silenceMs) this.abandon(conn, `no message for ${now - lastHeard} ms`);
    else if (now - conn.openedAt > maxConnectionMs)
      this.rotate("the connection is near Binance's 24-hour limit");
  }

  // ------------------------------------------------------------------------------------------ writes

  private setConnection(state: ConnectionState): void {
    if (this.connection !== state) this.stateDirty = true;
    this.connection = state;
  }

  snapshot(): MarketSnapshot {
    const last = this.book.lastMessageAt;
    return {
      source: this.source,
      stream: TRADE_STREAMS,
      holder: this.holderId,
      connection: this.connection,
      connectedAt: this.connectedAt === null ? null : new Date(this.connectedAt).toISOString(),
      lastMessageAt: last === null ? null : new Date(last).toISOString(),
      msgs: this.book.msgs,
      writes: this.writes,
      reconnects: this.reconnects,
      lastError: this.lastError,
      ticks: this.book.takeBatch(),
    };
  }

  /** Writes the latest ticks and the state when they changed (always when `force`). */
  private async flush(force: boolean): Promise<void> {
    if (this.flushing || (!force && this.role !== "leader")) return;
    const ticksChanged = this.book.dirty;
    if (!force && !ticksChanged && !this.stateDirty) return;
    if (ticksChanged) this.writes++;
    this.stateDirty = false;
    const snapshot = this.snapshot();
    this.flushing = writeSnapshot(this.ctx.store, snapshot, this.recordedSample)
      .catch((error) => {
        this.book.dirty ||= ticksChanged;
        this.stateDirty = true;
        this.ctx.log.warn({ err: String(error) }, "market collector: writing ticks failed");
      })
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
  }

  private async playRecording(replay: NonNullable<CollectorOptions["replay"]>): Promise<void> {
    this.setConnection("replay");
    try {
      const { frames, source } = await replay();
      this.source = source;
      this.recordedSample = true;
      for (const line of frames.split("\n")) if (line.trim()) this.book.ingest(line);
    } catch (error) {
      this.lastError = `replay: ${errorText(error)}`;
      this.ctx.log.warn({ err: this.lastError }, "market collector: no recorded stream to replay");
    }
    await this.flush(true);
  }

  // ------------------------------------------------------------------------------------------ timers

  private every(ms: number, run: () => void): void {
    this.timers.add(unref(setInterval(run, ms)));
  }

  private later(ms: number, run: () => void): void {
    const timer = unref(
      setTimeout(() => {
        this.timers.delete(timer);
        run();
      }, ms),
    );
    this.timers.add(timer);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

function unref(timer: NodeJS.Timeout): NodeJS.Timeout {
  timer.unref();
  return timer;
}

function closeAndWait(ws: WebSocket, timeoutMs: number): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    ws.addEventListener("close", () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(1000, "collector stopping");
  });
}
