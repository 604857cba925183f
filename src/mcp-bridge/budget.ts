// What the bridge may spend: a cap per call, a cap for the session (this process), a threshold above which the
// user confirms; and the receipts of what it paid, one JSON line each.
import fs from "node:fs";
import path from "node:path";
import { atomicToUsd } from "../x402/shared/money.ts";
import { type BridgeOptions, SETTINGS } from "./options.ts";

type Decision = { refuse: string } | { confirm: string } | { pay: true };

interface Receipt {
  time: string;
  tool: string;
  argumentsSha256: string;
  amount: string;
  priceUsd: string;
  network: string;
  asset: string;
  payTo: string;
  /** exact, or batch-settlement (a voucher: no transaction of its own unless it carried a deposit). */
  scheme: string;
  payer?: string;
  transaction: string;
}

const raise = (s: { flag: string; env: string }) => `raise ${s.flag} or ${s.env} to allow it`;

export class Budget {
  /** Settled, plus reserved for payments under way (so two calls at once cannot pass the session cap). */
  private committed = 0n;

  private readonly options: BridgeOptions;

  constructor(options: BridgeOptions) {
    this.options = options;
  }

  get spent(): bigint {
    return this.committed;
  }

  decide(amount: bigint): Decision {
    const { maxPerCall, maxSession, confirmAbove } = this.options;
    const price = `${atomicToUsd(amount)} USD`;
    if (amount > maxPerCall) {
      return {
        refuse: `Not paid: this call costs ${price}, above the per-call cap of ${atomicToUsd(maxPerCall)} USD (${raise(SETTINGS.maxPerCall)}).`,
      };
    }
    if (this.committed + amount > maxSession) {
      return {
        refuse: `Not paid: this call costs ${price} and ${atomicToUsd(this.committed)} USD has been spent in this session; the session cap is ${atomicToUsd(maxSession)} USD (${raise(SETTINGS.maxSession)}, or restart the bridge).`,
      };
    }
    if (amount > confirmAbove) {
      return {
        confirm: `This call costs ${price} (above ${atomicToUsd(confirmAbove)} USD, the amount paid without asking). Pay it?`,
      };
    }
    return { pay: true };
  }

  /** The refusal when a confirmation is needed and the MCP client cannot ask the user. */
  cannotConfirm(amount: bigint): string {
    return `Not paid: this call costs ${atomicToUsd(amount)} USD, above ${atomicToUsd(this.options.confirmAbove)} USD, and this MCP client cannot ask you to confirm (it offers no elicitation). To pay such calls without asking, ${raise(SETTINGS.confirmAbove)}.`;
  }

  reserve(amount: bigint): void {
    this.committed += amount;
  }

  release(amount: bigint): void {
    this.committed -= amount;
  }

  keep(receipt: Receipt): void {
    fs.mkdirSync(path.dirname(this.options.receiptsFile), { recursive: true });
    fs.appendFileSync(this.options.receiptsFile, `${JSON.stringify(receipt)}\n`, { mode: 0o600 });
  }
}
