// Parameters of /v1/uspto/patent: exactly one of q (words searched in grant titles) or patentNumber (a US
// grant number: utility 11646472, design D987654, plant PP34567, reissue RE49876, with or without "US", commas
// and the kind code), normalised to digits with the type prefix.
import { z } from "zod";

const Q_MAX = 200;

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** "US 11,896,123 B2" → "11896123"; "d987,654 s" → "D987654"; undefined when it is not a grant number. */
export function normalisePatentNumber(raw: string): string | undefined {
  const compact = raw.toUpperCase().replace(/[\s,]/g, "").replace(/^US/, "");
  const match = compact.match(/^(D|PP|RE|H|T|X|AI)?0*(\d{1,8})([ABSEPH]\d?)?$/);
  if (!match || Number(match[2]) === 0) return undefined;
  return `${match[1] ?? ""}${match[2]}`;
}

export const PatentQuery = z
  .object({
    q: z
      .string()
      .refine((v) => !CONTROL.test(v), "q must not contain control characters")
      .transform((v) => v.normalize("NFC").trim().replace(/\s+/g, " "))
      .refine((v) => v.length > 0, "q must not be empty: give words to find in patent titles")
      .refine((v) => v.length <= Q_MAX, `q must be at most ${Q_MAX} characters`)
      .refine((v) => /[\p{L}\p{N}]/u.test(v), "q must contain a letter or digit")
      .optional()
      .describe("Words that must all appear in the grant's title (newest grants first)"),
    patentNumber: z
      .string()
      .transform((raw, ctx) => {
        const id = normalisePatentNumber(raw);
        if (!id) {
          ctx.addIssue({
            code: "custom",
            message:
              "patentNumber must be a US patent grant number such as 11646472, US 11,646,472 B2, D987654 or RE49876",
          });
          return z.NEVER;
        }
        return id;
      })
      .optional()
      .describe("A US patent grant number: 11646472, US11646472B2, D987654, PP34567, RE49876"),
  })
  .superRefine((query, ctx) => {
    if (query.q === undefined && query.patentNumber === undefined) {
      ctx.addIssue({ code: "custom", path: ["q"], message: "give q (words) or patentNumber (one grant)" });
    } else if (query.q !== undefined && query.patentNumber !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["patentNumber"],
        message: "give either q or patentNumber, not both",
      });
    }
  });
