// JSON-RPC 2.0 over a table of methods, for the local facilitator's pretend chains' nodes (solana-rpc.ts,
// evm-rpc.ts): single calls and batches; every failure is a JSON-RPC error object, never an exception.
import { isObject } from "../../json.ts";

export type JsonRpc = (body: unknown) => Promise<unknown>;
export type RpcMethods = Record<string, (params: unknown[]) => Promise<unknown>>;

export class RpcError extends Error {
  readonly code: number;
  /** The error's `data` member (an EVM node puts a revert's encoded reason there). */
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const BATCH_LIMIT = 100;

export function jsonRpcOver(table: RpcMethods): JsonRpc {
  const error = (id: unknown, code: number, message: string, data?: unknown) => ({
    jsonrpc: "2.0",
    id: id ?? null,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
  async function one(request: unknown): Promise<unknown> {
    if (!isObject(request) || request.jsonrpc !== "2.0" || typeof request.method !== "string")
      return error(isObject(request) ? request.id : null, -32600, "Invalid Request");
    const id = request.id;
    if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number")
      return error(null, -32600, "Invalid Request: id must be a string, a number or null");
    const method = Object.hasOwn(table, request.method) ? table[request.method] : undefined;
    if (!method) return error(id, -32601, `Method not found: ${request.method}`);
    const params = request.params === undefined ? [] : request.params;
    if (!Array.isArray(params)) return error(id, -32602, "Invalid params: params must be an array");
    try {
      return { jsonrpc: "2.0", id: id ?? null, result: await method(params) };
    } catch (e) {
      if (e instanceof RpcError) return error(id, e.code, e.message, e.data);
      return error(id, -32603, "Internal error");
    }
  }
  return async (body) => {
    if (Array.isArray(body)) {
      if (body.length === 0 || body.length > BATCH_LIMIT)
        return error(null, -32600, `Invalid Request: a batch holds 1 to ${BATCH_LIMIT} calls`);
      return Promise.all(body.map(one));
    }
    return one(body);
  };
}

/** A fetch that hands the JSON-RPC body to the pretend node in process (paycall's own chain reads in local mode). */
export function inProcessFetch(rpc: JsonRpc): typeof fetch {
  return (async (_url: unknown, init?: RequestInit) => {
    let body: unknown;
    try {
      body = JSON.parse(String(init?.body));
    } catch {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    return Response.json(await rpc(body));
  }) as typeof fetch;
}
