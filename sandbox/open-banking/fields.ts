/**
 * Request fields as the spec tables declare them: TYPE(length) and whether required (Y/N). The TYPE letters are not
 * defined in any source the research could read; from their use: N digits, A upper-case letters, AN upper-case
 * letters and digits (a third-party note insists on upper case), aN letters of either case and digits, AH any text
 * incl. Hangul. Lengths are maxima counted in characters (whether the gateway counts bytes is unknown); dates, ids and
 * codes of a fixed size must have exactly that length. Every value must be a JSON string, numbers included (every
 * official example sends strings; whether the gateway accepts JSON numbers is unconfirmed, so this emulator refuses
 * them). An optional field sent as "" counts as absent.
 */
export type FieldType = 'N' | 'A' | 'AN' | 'aN' | 'AH';
export interface FieldSpec {
  type: FieldType;
  length: number;
  required: boolean;
  /** The value must be exactly `length` long. */
  exact?: boolean;
  /** Replaces the TYPE's pattern (account_holder_info_type is AN(1) yet its "birth date" code is a space). */
  pattern?: RegExp;
}
export type FieldTable = Record<string, FieldSpec>;

const PATTERNS: Record<FieldType, RegExp> = {
  N: /^[0-9]+$/,
  A: /^[A-Z]+$/,
  AN: /^[A-Z0-9]+$/,
  aN: /^[A-Za-z0-9]+$/,
  // Any text but control characters.
  AH: /^[^\u0000-\u001f\u007f]+$/,
};

/** A "Y" row: required, at most `length` long. */
export const required = (type: FieldType, length: number, extra: Partial<FieldSpec> = {}): FieldSpec => ({
  type,
  length,
  required: true,
  ...extra,
});
/** An "N" row: optional, at most `length` long. */
export const optional = (type: FieldType, length: number, extra: Partial<FieldSpec> = {}): FieldSpec => ({
  type,
  length,
  required: false,
  ...extra,
});
/** A "Y" row of a fixed size (dates, ids, codes). */
export const fixed = (type: FieldType, length: number): FieldSpec => required(type, length, { exact: true });

export type FieldCheck = { values: Record<string, string> } | { problem: string };

/** The fields of `table` read from `input`, or what is wrong with the first field that breaks its row. */
export function readFields(input: unknown, table: FieldTable): FieldCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { problem: 'the body must be a JSON object (application/json)' };
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(table)) {
    const value = (input as Record<string, unknown>)[name];
    if (value === undefined || value === null || value === '') {
      if (spec.required) return { problem: `${name} is required` };
      continue;
    }
    const shape = `${spec.type}(${spec.length})${spec.exact ? ' exactly' : ''}`;
    if (typeof value !== 'string') return { problem: `${name} must be a string ${shape}` };
    const badLength = value.length > spec.length || (spec.exact && value.length !== spec.length);
    if (badLength || !(spec.pattern ?? PATTERNS[spec.type]).test(value)) return { problem: `${name} must be ${shape}` };
    values[name] = value;
  }
  return { values };
}
