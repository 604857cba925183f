// Characters no buyer's parameter needs and that can hide what a text says: NUL and the other C0 and C1
// controls, and the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069).

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_BUT_LINE_BREAKS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** True when a one-line value (a search, a name, an id) carries any control character, line breaks included. */
export function hasControlCharacters(value: string): boolean {
  return ANY_CONTROL.test(value);
}

/** True when pasted text (an error message, a header value) carries a control character other than tab or a line break. */
export function hasUnsafeCharacters(value: string): boolean {
  return CONTROL_BUT_LINE_BREAKS.test(value);
}

export const CONTROL_CHARACTERS_MESSAGE =
  "must not contain control characters (NUL and other controls, or bidirectional overrides)";
