// The DID document of the receipt key (W3C did:web: GET /.well-known/did.json for a bare host, /<path>/did.json
// when PUBLIC_URL has a path), so any verifier resolves a receipt's kid to our public key
// (@x402/extensions resolves did:web the same way).
import { Hono } from "hono";
import type { Config } from "../../../config.ts";
import { JSON_HEADERS } from "../../../responses.ts";
import { didWebOf, keyIdOf } from "./issuer.ts";
import { type ReceiptKey, receiptKey } from "./signing-key.ts";

function didDocument(publicUrl: string, key: ReceiptKey): Record<string, unknown> {
  const did = didWebOf(publicUrl);
  const kid = keyIdOf(publicUrl, key);
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: [
      {
        id: kid,
        type: "JsonWebKey2020",
        controller: did,
        publicKeyJwk: { ...key.publicJwk, use: "sig" },
      },
    ],
    assertionMethod: [kid],
    service: [
      {
        id: `${did}#x402-receipts`,
        type: "X402ReceiptVerifier",
        serviceEndpoint: `${publicUrl}/v1/receipts/verify`,
      },
    ],
  };
}

/** GET /.well-known/did.json (and /did.json, where a path-prefixed PUBLIC_URL's did:web resolves). */
export function didDocumentRoutes(config: Config): Hono {
  const app = new Hono();
  const serve = () =>
    new Response(JSON.stringify(didDocument(config.publicUrl, receiptKey(config))), {
      headers: {
        ...JSON_HEADERS,
        "content-type": "application/did+json",
        "cache-control": "public, max-age=300",
      },
    });
  app.get("/.well-known/did.json", serve);
  app.get("/did.json", serve);
  return app;
}
