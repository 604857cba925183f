// A stand-in EVM JSON-RPC node on loopback: a USDC contract whose EIP-3009 authorizations the test spends,
// answering what viem asks (eth_chainId, eth_blockNumber, eth_getBlockByNumber, eth_call of
// authorizationState, eth_getLogs of AuthorizationUsed), and Permit2's nonceBitmap for upto payments. `down`
// makes it refuse every call.
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  type Hex,
  pad,
  parseAbi,
  toHex,
} from "viem";

const ABI = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);
const PERMIT2_ABI = parseAbi(["function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)"]);

export interface StubEvmRpc {
  url: string;
  /** Refuse every call (HTTP 503), as an unreachable endpoint would. */
  down: boolean;
  /** The latest block's time in seconds; defaults to the wall clock. */
  chainTime?: number;
  /** Whether eth_getLogs answers (some public endpoints refuse wide ranges). */
  logs: boolean;
  calls: Record<string, number>;
  /** Marks an authorization spent by a transaction, as transferWithAuthorization would. */
  spend: (authorizer: string, nonce: string, transaction: Hex) => void;
  /** Marks a Permit2 nonce spent, as permitWitnessTransferFrom would. */
  spendPermit2: (owner: string, nonce: bigint) => void;
  close: () => Promise<void>;
}

interface RpcRequest {
  id: number;
  method: string;
  params: unknown[];
}

const key = (authorizer: string, nonce: string) => `${authorizer.toLowerCase()}:${nonce.toLowerCase()}`;

export async function startStubEvmRpc(chainId = 8453): Promise<StubEvmRpc> {
  const spent = new Map<string, { authorizer: Hex; nonce: Hex; transaction: Hex; block: bigint }>();
  let height = 30_000_000n;
  const permit2Words = new Map<string, bigint>();
  const rpc: StubEvmRpc = {
    url: "",
    down: false,
    logs: true,
    calls: {},
    spend: (authorizer, nonce, transaction) => {
      height += 1n;
      spent.set(key(authorizer, nonce), {
        authorizer: authorizer as Hex,
        nonce: nonce as Hex,
        transaction,
        block: height,
      });
    },
    spendPermit2: (owner, nonce) => {
      const word = `${owner.toLowerCase()}:${nonce >> 8n}`;
      permit2Words.set(word, (permit2Words.get(word) ?? 0n) | (1n << (nonce & 0xffn)));
    },
    close: async () => {},
  };
  const now = () => BigInt(rpc.chainTime ?? Math.floor(Date.now() / 1000));

  function answer(request: RpcRequest): unknown {
    rpc.calls[request.method] = (rpc.calls[request.method] ?? 0) + 1;
    switch (request.method) {
      case "eth_chainId":
        return toHex(chainId);
      case "eth_blockNumber":
        return toHex(height);
      case "eth_getBlockByNumber":
        return {
          number: toHex(height),
          hash: pad(toHex(height), { size: 32 }),
          parentHash: pad(toHex(height - 1n), { size: 32 }),
          timestamp: toHex(now()),
          nonce: "0x0000000000000000",
          sha3Uncles: pad("0x0", { size: 32 }),
          logsBloom: pad("0x0", { size: 256 }),
          transactionsRoot: pad("0x0", { size: 32 }),
          stateRoot: pad("0x0", { size: 32 }),
          receiptsRoot: pad("0x0", { size: 32 }),
          miner: pad("0x0", { size: 20 }),
          difficulty: "0x0",
          totalDifficulty: "0x0",
          extraData: "0x",
          size: "0x0",
          gasLimit: "0x1c9c380",
          gasUsed: "0x0",
          baseFeePerGas: "0x1",
          transactions: [],
          uncles: [],
        };
      case "eth_call": {
        const call = request.params[0] as { to: string; data: Hex };
        if (call.to.toLowerCase() === "0x000000000022d473030f116ddee9f6b43ac78ba3") {
          const [owner, wordPos] = decodeFunctionData({ abi: PERMIT2_ABI, data: call.data }).args;
          return encodeFunctionResult({
            abi: PERMIT2_ABI,
            functionName: "nonceBitmap",
            result: permit2Words.get(`${owner.toLowerCase()}:${wordPos}`) ?? 0n,
          });
        }
        const { functionName, args } = decodeFunctionData({ abi: ABI, data: call.data });
        if (functionName !== "authorizationState") throw new Error(`unexpected call ${functionName}`);
        const [authorizer, nonce] = args as [string, string];
        return encodeFunctionResult({
          abi: ABI,
          functionName: "authorizationState",
          result: spent.has(key(authorizer, nonce)),
        });
      }
      case "eth_getLogs": {
        if (!rpc.logs) throw new Error("query exceeds max block range");
        const filter = request.params[0] as { fromBlock: Hex; toBlock: Hex; topics: Array<Hex | null> };
        const [, authorizerTopic, nonceTopic] = filter.topics;
        return [...spent.values()]
          .filter((s) => s.block >= BigInt(filter.fromBlock) && s.block <= BigInt(filter.toBlock))
          .map((s) => ({
            topics: encodeEventTopics({
              abi: ABI,
              eventName: "AuthorizationUsed",
              args: { authorizer: s.authorizer, nonce: s.nonce },
            }),
            s,
          }))
          .filter(({ topics }) => topics[1] === authorizerTopic && topics[2] === nonceTopic)
          .map(({ topics, s }) => ({
            address: (filter as { address?: Hex }).address,
            topics,
            data: encodeAbiParameters([], []),
            blockNumber: toHex(s.block),
            blockHash: pad(toHex(s.block), { size: 32 }),
            transactionHash: s.transaction,
            transactionIndex: "0x0",
            logIndex: "0x0",
            removed: false,
          }));
      }
      default:
        throw new Error(`method ${request.method} not supported`);
    }
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (rpc.down) {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("service unavailable");
        return;
      }
      const parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
      const one = (r: RpcRequest) => {
        try {
          return { jsonrpc: "2.0", id: r.id, result: answer(r) };
        } catch (error) {
          return { jsonrpc: "2.0", id: r.id, error: { code: -32000, message: String(error) } };
        }
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rpc.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rpc.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return rpc;
}
