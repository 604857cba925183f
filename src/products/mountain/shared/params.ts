// Query parameter schemas shared by the mountain products. Values arrive as strings from the URL; an empty
// value is always a 400 (never silently defaulted).
import { z } from "zod";

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function toNumber(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  return NUMERIC.test(text) ? Number(text) : Number.NaN;
}

/** A finite number within [min, max] (or (min, max] with `aboveMin`). */
export function numberParam(
  description: string,
  range: { min: number; max: number; aboveMin?: boolean; integer?: boolean },
) {
  const wanted = `${range.integer ? "an integer" : "a number"} ${range.aboveMin ? "above" : "from"} ${range.min} ${range.aboveMin ? "and at most" : "to"} ${range.max}`;
  let inner = z.number({ error: `must be ${wanted}` });
  if (range.integer) inner = inner.int({ error: `must be ${wanted}` });
  inner = range.aboveMin
    ? inner.gt(range.min, { error: `must be ${wanted}` })
    : inner.min(range.min, { error: `must be ${wanted}` });
  inner = inner.max(range.max, { error: `must be ${wanted}` });
  return z.preprocess(toNumber, inner.describe(description));
}

export const countryParam = z
  .string({ error: "is required: a two-letter country code such as ch, at or us" })
  .trim()
  .toLowerCase()
  .regex(/^[a-z]{2}$/, { error: "must be a two-letter country code such as ch, at or us" })
  .describe("Lower-case ISO 3166-1 alpha-2 country code, e.g. ch");

/** A lower-case id such as a resort, area or corridor slug. */
export function slugParam(what: string, required: string) {
  return z
    .string({ error: `is required: ${required}` })
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, {
      error: `must be ${what}: lower-case letters, digits and hyphens`,
    });
}

export const resortParam = slugParam(
  "a resortId from /v1/ski/inventory",
  "a resortId from /v1/ski/inventory",
).describe("Resort id (slug) from /v1/ski/inventory");

export const usStateParam = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, { error: "must be a two-letter US state code such as CO (US resorts only)" })
  .describe("Two-letter US state code, US only (e.g. CO)");

export const dateParam = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date YYYY-MM-DD" })
  .refine((d) => isCalendarDate(d), { error: "must be a real calendar date YYYY-MM-DD" });

/** A lower-case token such as a ticket type, age band or season band (`1-day`, `adult`, `peak`). */
export function tokenParam(what: string) {
  return z
    .string({ error: `is required: ${what}` })
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/, {
      error: `must be ${what}: lower-case letters, digits and hyphens`,
    });
}

export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

export const PLACE_TYPES = ["restaurant", "cafe", "bar", "pub", "fast_food"] as const;
export type PlaceType = (typeof PLACE_TYPES)[number];

export const placeTypeParam = z
  .enum(PLACE_TYPES, { error: `must be one of ${PLACE_TYPES.join(", ")}` })
  .describe("Only places of this kind");
