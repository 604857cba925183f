// Field schemas for curated records: each accepts the JSON value or the CSV cell text for the same field, so
// one schema validates both formats. An empty CSV cell counts as absent.
import { z } from "zod";
import { isCalendarDate } from "../shared/params.ts";

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function emptyToUndefined(value: unknown): unknown {
  return typeof value === "string" && value.trim() === "" ? undefined : value;
}

function missingOr(message: string) {
  return (issue: { input: unknown }) => (issue.input === undefined ? "is required" : message);
}

export function text(max = 200) {
  return z.preprocess(
    emptyToUndefined,
    z
      .string({ error: missingOr("must be text") })
      .trim()
      .max(max, { error: `must be at most ${max} characters` }),
  );
}

export function optionalText(max = 200) {
  return z.preprocess(
    emptyToUndefined,
    z
      .string({ error: "must be text" })
      .trim()
      .max(max, { error: `must be at most ${max} characters` })
      .optional(),
  );
}

export const slug = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be text") })
    .trim()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, {
      error: "must be a lower-case slug (letters, digits, hyphens), e.g. sample-alpenrose",
    }),
);

export const optionalSlug = z.preprocess(emptyToUndefined, slug.optional());

export const token = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be text") })
    .trim()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/, {
      error: "must be a lower-case token (letters, digits, hyphens), e.g. 1-day or adult",
    }),
);

export const country = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be text") })
    .trim()
    .regex(/^[a-z]{2}$/, { error: "must be a lower-case two-letter country code, e.g. ch" }),
);

export const currency = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be text") })
    .trim()
    .regex(/^[A-Z]{3}$/, { error: "must be an upper-case ISO 4217 currency code, e.g. CHF" }),
);

export const optionalCurrency = z.preprocess(emptyToUndefined, currency.optional());

export function number(min: number, max: number) {
  return z.preprocess(
    (value) => {
      const v = emptyToUndefined(value);
      if (typeof v !== "string") return v;
      return NUMERIC.test(v.trim()) ? Number(v.trim()) : Number.NaN;
    },
    z
      .number({ error: missingOr(`must be a number from ${min} to ${max}`) })
      .min(min, { error: `must be a number from ${min} to ${max}` })
      .max(max, { error: `must be a number from ${min} to ${max}` }),
  );
}

export const latitude = number(-90, 90);
export const longitude = number(-180, 180);

export const date = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be a date YYYY-MM-DD") })
    .trim()
    .refine(isCalendarDate, { error: "must be a real calendar date YYYY-MM-DD" }),
);

export const optionalDate = z.preprocess(emptyToUndefined, date.optional());

export const url = z.preprocess(
  emptyToUndefined,
  z
    .string({ error: missingOr("must be an http(s) URL") })
    .trim()
    .refine(
      (value) => {
        try {
          const parsed = new URL(value);
          return parsed.protocol === "https:" || parsed.protocol === "http:";
        } catch {
          return false;
        }
      },
      { error: "must be an http(s) URL" },
    ),
);

export const optionalUrl = z.preprocess(emptyToUndefined, url.optional());

export const sampleFlag = z.preprocess(
  (value) => {
    const v = emptyToUndefined(value);
    if (typeof v !== "string") return v;
    const lower = v.trim().toLowerCase();
    if (["true", "1", "yes"].includes(lower)) return true;
    if (["false", "0", "no"].includes(lower)) return false;
    return v;
  },
  z.boolean({ error: "must be true or false" }).default(false),
);

/** A list: a JSON array, or in CSV the items separated by `;`. */
export function list<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) => {
      const v = emptyToUndefined(value);
      return typeof v === "string"
        ? v
            .split(";")
            .map((s) => s.trim())
            .filter(Boolean)
        : v;
    },
    z.array(item, { error: missingOr("must be a list (JSON array, or items separated by ; in CSV)") }),
  );
}

const DateRange = z
  .object({ from: date, to: date }, { error: "must be a date range { from, to }" })
  .refine((r) => r.from <= r.to, { error: "from must not be after to" });

/** Season band date ranges: JSON [{ "from": "2025-12-20", "to": "2026-01-06" }] or CSV `2025-12-20..2026-01-06;…`. */
export const bandDates = z.preprocess(
  (value) => {
    const v = emptyToUndefined(value);
    if (typeof v !== "string") return v;
    return v
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((range) => {
        const [from, to, ...rest] = range.split("..");
        return rest.length === 0 && to !== undefined ? { from: from?.trim(), to: to.trim() } : range;
      });
  },
  z
    .array(DateRange, {
      error: missingOr("must be date ranges: JSON [{from, to}] or CSV YYYY-MM-DD..YYYY-MM-DD;…"),
    })
    .min(1, { error: "must hold at least one date range" }),
);

const Point = z.tuple([latitude, longitude], { error: "must be a point [lat, lon]" });

/** A route: JSON [[lat, lon], …] or CSV `lat lon;lat lon;…`. */
export const routePath = z.preprocess(
  (value) => {
    const v = emptyToUndefined(value);
    if (typeof v !== "string") return v;
    return v
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((pair) => pair.split(/[\s,]+/));
  },
  z
    .array(Point, {
      error: missingOr("must be a list of points: JSON [[lat, lon], …] or CSV lat lon;lat lon"),
    })
    .min(2, { error: "must hold at least two points" })
    .max(500, { error: "must hold at most 500 points" }),
);
