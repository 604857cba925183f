// The fields every /v1/gov answer starts with: which product, country and family it is, where it was read
// and when, and the upstream's licence (with the recorded-sample notice in replay mode).
import { z } from "zod";
import { type GovFamilyName, type GovRouteInfo, govSku } from "./gov-product.ts";
import { LicenceSchema, withSampleNotice } from "./licences.ts";

export function govEnvelopeShape<F extends GovFamilyName>(family: F) {
  return {
    sku: z.string().describe("Product id, gov.<cc>.<family>"),
    cc: z.string().describe("Lower-case country code (eu for the European Union)"),
    country: z.string().describe("Country name in English"),
    family: z.literal(family),
    source: z.url().describe("The upstream URL this answer was read from"),
    fetchedAt: z.iso.datetime().describe("When the upstream was read"),
    licence: LicenceSchema,
  };
}

/** Which envelope fields the partial answer schemas of gov routes keep required. */
export const GOV_ENVELOPE_REQUIRED = {
  sku: true,
  cc: true,
  country: true,
  family: true,
  source: true,
  fetchedAt: true,
  licence: true,
} as const;

export function govEnvelope<F extends GovFamilyName>(
  family: F,
  info: GovRouteInfo,
  source: string,
  fetchedAt: string,
  recordedSample: boolean,
) {
  return {
    sku: govSku(info.cc, family),
    cc: info.cc,
    country: info.country,
    family,
    source,
    fetchedAt,
    licence: withSampleNotice(info.licence, recordedSample),
  };
}
