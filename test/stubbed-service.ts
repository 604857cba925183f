// A test service paying through a stub facilitator (test/stub-facilitator.ts) and, for chain decisions, a
// stand-in Base RPC; the fault-matrix family of tests share it.
import type { Family } from "../src/catalog/product.ts";
import { startTestService, type TestService } from "./harness.ts";
import { type StubEvmRpc, startStubEvmRpc } from "./stub-evm-rpc.ts";
import { STUB_SETTLED, STUB_VALID, type StubFacilitator, startStubFacilitator } from "./stub-facilitator.ts";
import { resetHandlerRuns, testFamily } from "./test-family.ts";

export const STUB_PAY_TO = "0x00000000000000000000000000000000000000aa";

export interface StubbedService {
  stub: StubFacilitator;
  rpc: StubEvmRpc;
  service: TestService;
  stop: () => Promise<void>;
}

/**
 * The service with the test family, a 300 ms facilitator timeout, and a worker that runs only when the test says
 * (drain, reconcile), so no background poll races it.
 */
export async function startStubbedService(
  env: Record<string, string> = {},
  families: Family[] = [testFamily],
): Promise<StubbedService> {
  const stub = await startStubFacilitator();
  const rpc = await startStubEvmRpc();
  const service = await startTestService(
    {
      FACILITATOR_URL: stub.url,
      PAY_TO_EVM: STUB_PAY_TO,
      FACILITATOR_TIMEOUT_MS: "300",
      BASE_RPC_URL: rpc.url,
      WORKER_POLL_MS: "60000",
      ...env,
    },
    families,
  );
  return {
    stub,
    rpc,
    service,
    async stop() {
      await service.stop();
      await stub.close();
      await rpc.close();
    },
  };
}

/** Before each test: the stub accepts and settles again, and nothing has been counted. */
export function resetStub(stub: StubFacilitator): void {
  stub.verify = STUB_VALID;
  stub.settle = STUB_SETTLED;
  stub.calls.verify = 0;
  stub.calls.settle = 0;
  stub.peak.verify = stub.open.verify;
  stub.peak.settle = stub.open.settle;
  resetHandlerRuns();
}
