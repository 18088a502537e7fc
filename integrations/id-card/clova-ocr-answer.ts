import { Type, type Static } from '@sinclair/typebox';
import { ProviderAnswerInvalid, expectAnswer } from '../provider-http';
import type { IdCardKind, IdCardReading } from './reader';

/**
 * CLOVA OCR's ID-card answer (Document OCR `/id-card`), read into the reader port's words. NAVER publishes the request
 * but its response table could not be read; the shape here is that of NAVER's eKYC SDK (`IcrResult`: per card kind a
 * map of field name to a list of `{text, formatted, boundingPolys, maskingPolys}`) and of a third-party capture
 * (test/contract/fixtures/clova/SOURCES.md). The schema holds only what the mapping reads, so fields CLOVA adds or
 * omits elsewhere do not break it.
 */

/** A recognised field: the text as printed, and CLOVA's normalised form: `{value}` for text, `{year, month, day}` for dates. */
const Field = Type.Object({
  text: Type.String(),
  formatted: Type.Optional(
    Type.Object({
      value: Type.Optional(Type.String()),
      year: Type.Optional(Type.String()),
      month: Type.Optional(Type.String()),
      day: Type.Optional(Type.String()),
    }),
  ),
});
const CardFields = Type.Record(Type.String(), Type.Array(Field));
type CardFields = Static<typeof CardFields>;

const Image = Type.Object({
  /** `SUCCESS` when a card was recognised; anything else is a failure (its reason in `message`). */
  inferResult: Type.String(),
  message: Type.Optional(Type.String()),
  idCard: Type.Optional(
    Type.Object({
      result: Type.Object({
        isConfident: Type.Boolean(),
        ic: Type.Optional(CardFields),
        dl: Type.Optional(CardFields),
        pp: Type.Optional(CardFields),
        ac: Type.Optional(CardFields),
      }),
    }),
  ),
});

/** One image per call (the request sends one), so one in the answer. */
export const ClovaIdCardAnswer = Type.Object({ images: Type.Array(Image, { minItems: 1 }) });

/** What an answer without a card reads as: nothing, and not confidently. */
export const UNREADABLE: IdCardReading = { kind: 'unknown', confident: false, name: '', birthDate: '' };

/** The card kinds by CLOVA's key for their fields (resident card, driver's licence, passport, alien registration). */
const KINDS = { ic: 'resident_id', dl: 'driver_license', pp: 'passport', ac: 'alien_registration' } as const;

/** The reading in a CLOVA `/id-card` answer; an answer not in that form is ProviderAnswerInvalid. */
export function readingFromClovaAnswer(body: unknown): IdCardReading {
  const image = expectAnswer(ClovaIdCardAnswer, body, 'a CLOVA OCR ID-card reading').images[0]!;
  if (image.inferResult !== 'SUCCESS') return UNREADABLE;
  if (!image.idCard)
    throw new ProviderAnswerInvalid(
      'CLOVA OCR answered SUCCESS without an idCard',
      JSON.stringify(image).slice(0, 500),
    );
  const result = image.idCard.result;
  const key = (Object.keys(KINDS) as Array<keyof typeof KINDS>).find((k) => result[k]);
  if (!key) return UNREADABLE;
  return { ...readCard(KINDS[key], result[key]!), confident: result.isConfident };
}

function readCard(kind: IdCardKind, fields: CardFields): Omit<IdCardReading, 'confident'> {
  switch (kind) {
    case 'resident_id':
      return withNumber({ kind, name: text(fields, 'name') ?? '' }, digits(fields, 'personalNum'), fields);
    case 'driver_license': {
      const license = digits(fields, 'num');
      const serial = text(fields, 'code')?.replace(/\s/g, '').toUpperCase();
      return {
        ...withNumber({ kind, name: text(fields, 'name') ?? '' }, digits(fields, 'personalNum'), fields),
        ...(license?.length === 12 ? { licenseNumber: license } : {}),
        ...(serial && /^[0-9A-Z]{5,6}$/.test(serial) ? { licenseSerial: serial } : {}),
      };
    }
    case 'passport': {
      // A passport prints its birth date; older ones also the resident number.
      const reading = withNumber(
        { kind, name: text(fields, 'fullNameKor') ?? text(fields, 'name') ?? '' },
        digits(fields, 'personalNum'),
        fields,
      );
      const printed = date(fields, 'birthDate');
      return printed ? { ...reading, birthDate: printed } : reading;
    }
    case 'alien_registration':
      // The alien registration number has the resident number's form (birth date, then 5-8 for the century and sex).
      return withNumber({ kind, name: text(fields, 'name') ?? '' }, digits(fields, 'alienRegNum'), fields);
  }
}

/** The birth date the number carries, the number when whole (13 digits), and the issue date when the card shows one. */
function withNumber(
  reading: Pick<IdCardReading, 'kind' | 'name'>,
  number: string | undefined,
  fields: CardFields,
): Omit<IdCardReading, 'confident'> {
  const issueDate = date(fields, 'issueDate');
  return {
    ...reading,
    birthDate: (number && birthDateOf(number)) || '',
    ...(number?.length === 13 ? { idNumber: number } : {}),
    ...(issueDate ? { issueDate } : {}),
  };
}

/** The first value CLOVA read for a field: its normalised form, else the text as printed. */
function text(fields: CardFields, key: string): string | undefined {
  const first = fields[key]?.[0];
  const value = (first?.formatted?.value ?? first?.text)?.trim();
  return value || undefined;
}

const digits = (fields: CardFields, key: string): string | undefined => text(fields, key)?.replace(/\D/g, '');

/** A date field's `formatted {year, month, day}` as YYYY-MM-DD, when it is a date of the calendar. */
function date(fields: CardFields, key: string): string | undefined {
  const { year, month, day } = fields[key]?.[0]?.formatted ?? {};
  if (!year || !month || !day) return undefined;
  return calendarDate(year, month.padStart(2, '0'), day.padStart(2, '0'));
}

/** The century of a resident (or alien registration) number's 7th digit, which also gives the sex. */
const CENTURY: Record<string, string> = {
  1: '19',
  2: '19',
  5: '19',
  6: '19',
  3: '20',
  4: '20',
  7: '20',
  8: '20',
  9: '18',
  0: '18',
};

/** YYYY-MM-DD from a resident number's first seven digits (YYMMDD and the century digit). */
function birthDateOf(number: string): string | undefined {
  const century = CENTURY[number[6] ?? ''];
  if (!century || number.length < 7) return undefined;
  return calendarDate(`${century}${number.slice(0, 2)}`, number.slice(2, 4), number.slice(4, 6));
}

function calendarDate(year: string, month: string, day: string): string | undefined {
  const iso = `${year}-${month}-${day}`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return undefined;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(iso) ? iso : undefined;
}
