// Development wallets kept in DATA_DIR: the pay-to address used with the local facilitator when
// PAY_TO_EVM is unset, and the buyer CLI's key when BUYER_PRIVATE_KEY is unset.
import fs from "node:fs";
import path from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

interface DevWallet {
  address: `0x${string}`;
  privateKey: `0x${string}`;
  created: boolean;
}

function loadOrCreate(file: string): DevWallet {
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { privateKey: `0x${string}` };
    return {
      privateKey: saved.privateKey,
      address: privateKeyToAccount(saved.privateKey).address,
      created: false,
    };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  fs.writeFileSync(
    file,
    `${JSON.stringify({ note: "development wallet; local facilitator only, holds no real funds", address, privateKey }, null, 2)}\n`,
    { mode: 0o600 },
  );
  return { address, privateKey, created: true };
}

export function devPayToWallet(dataDir: string): DevWallet {
  return loadOrCreate(path.join(dataDir, "dev-pay-to.json"));
}

export function devBuyerWallet(dataDir: string): DevWallet {
  return loadOrCreate(path.join(dataDir, "dev-buyer.json"));
}
