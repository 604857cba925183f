// The buyer's parameters of /v1/ofac/sdn, validated before payment.
import { z } from "zod";

const Q_MAX_CHARS = 200;
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
/** Practitioners screen at 80-85 on OFAC's slider; 85 is our default (OFAC's own tool starts at 100, exact). */
export const DEFAULT_MIN_SCORE = 85;
/** OFAC's prefilter drops names under 50 % similar, so lower thresholds would promise what is never scored. */
const LOWEST_MIN_SCORE = 50;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_LIMIT}`;
const MIN_SCORE_MESSAGE = `minScore must be an integer from ${LOWEST_MIN_SCORE} to 100`;
const UID_MESSAGE = "uid must be an OFAC entry uid: a positive integer";

export const OfacSdnQuery = z.object({
  q: z
    .string({ error: "q is required: the name of a person, company, vessel or aircraft to screen" })
    .refine((v) => !CONTROL.test(v), "q must not contain control characters")
    .transform((v) => v.replace(/\s+/g, " ").trim())
    .refine((v) => v !== "", "q must not be empty: give a name such as Vladimir Putin")
    .refine((v) => v.length <= Q_MAX_CHARS, `q must be at most ${Q_MAX_CHARS} characters`)
    .refine((v) => /[\p{L}\p{N}]/u.test(v), "q must contain a letter or digit")
    .describe(
      `Name to screen (person, company, vessel or aircraft), at most ${Q_MAX_CHARS} characters; any order ` +
        "(LAST, First or First Last), case and accents do not matter",
    ),
  uid: z.coerce
    .number({ error: UID_MESSAGE })
    .int(UID_MESSAGE)
    .positive(UID_MESSAGE)
    .max(2_147_483_647, UID_MESSAGE)
    .optional()
    .describe("Screen against this one list entry only (its OFAC uid, as in an earlier hit)"),
  limit: z.coerce
    .number({ error: LIMIT_MESSAGE })
    .int(LIMIT_MESSAGE)
    .min(1, LIMIT_MESSAGE)
    .max(MAX_LIMIT, LIMIT_MESSAGE)
    .optional()
    .describe(`Most hits returned, best first; default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}`),
  minScore: z.coerce
    .number({ error: MIN_SCORE_MESSAGE })
    .int(MIN_SCORE_MESSAGE)
    .min(LOWEST_MIN_SCORE, MIN_SCORE_MESSAGE)
    .max(100, MIN_SCORE_MESSAGE)
    .optional()
    .describe(
      `Lowest paycall score (0-100) reported as a hit; the same scale as the slider of OFAC's Sanctions List ` +
        `Search (100 is an exact match) but not the same scores; default ${DEFAULT_MIN_SCORE}`,
    ),
});
