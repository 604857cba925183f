// A buyer whose x402 client puts a payment identifier in every payment it signs, with the payment-identifier
// extension's own helper, as a buyer that wants safe retries does.
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { appendPaymentIdentifierToExtensions } from "@x402/extensions/payment-identifier";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { PrivateKeyAccount } from "viem/accounts";

export function clientWithId(account: PrivateKeyAccount, paymentId: string): x402Client {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    paymentRequired.extensions ??= {};
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
  return client;
}

export function payingWithId(account: PrivateKeyAccount, paymentId: string): typeof fetch {
  return wrapFetchWithPayment(fetch, clientWithId(account, paymentId)) as typeof fetch;
}

/** The PAYMENT-SIGNATURE the buyer's client signs for this URL and payment id, captured before it is sent. */
export async function signedHeaderWithId(
  account: PrivateKeyAccount,
  url: string,
  paymentId: string,
): Promise<string> {
  let header: string | undefined;
  const capture: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    header = request.headers.get("payment-signature") ?? undefined;
    return header ? new Response("{}", { status: 200 }) : fetch(request);
  };
  await wrapFetchWithPayment(capture, clientWithId(account, paymentId))(url);
  if (!header) throw new Error(`no payment was signed for ${url}`);
  return header;
}
