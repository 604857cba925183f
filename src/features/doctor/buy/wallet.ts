// The service's own test-buy wallet (DOCTOR_BUYER_PRIVATE_KEY), paying USDC on Base.
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import type { DoctorConfig } from "../config.ts";

export function buyerAccount(settings: DoctorConfig): PrivateKeyAccount | undefined {
  return settings.buyerPrivateKey ? privateKeyToAccount(settings.buyerPrivateKey) : undefined;
}
