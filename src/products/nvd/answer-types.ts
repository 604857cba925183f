// Small schema pieces the answers share. Timestamps validate like z.iso.datetime() but declare only
// `format: date-time`: the answer schema travels in every 402 header (the Bazaar extension), where the
// long regular expression z.iso.datetime() documents would cost kilobytes.
import { z } from "zod";

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const Timestamp = z
  .string()
  .refine((value) => ISO_UTC.test(value) && !Number.isNaN(Date.parse(value)), "an ISO 8601 UTC date-time")
  .meta({ format: "date-time" });

export const Day = z
  .string()
  .refine((value) => DAY.test(value) && !Number.isNaN(Date.parse(value)), "a YYYY-MM-DD date")
  .meta({ format: "date" });
