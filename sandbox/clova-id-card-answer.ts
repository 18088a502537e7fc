import { randomBytes } from 'node:crypto';
import type { CardText } from './id-card-image';

/**
 * One image of a CLOVA OCR `/id-card` answer, as CLOVA gives it (the shape of a captured answer and of NAVER's eKYC
 * SDK: test/contract/fixtures/clova/SOURCES.md): per card kind (`ic`, `dl`, `pp`, `ac`) each field a list of
 * `{text, formatted, boundingPolys, maskingPolys}`, dates formatted as `{year, month, day}`. The boxes are made up (the
 * sandbox reads no pixels) but well formed.
 */

type Vertex = { x: number; y: number };
interface Field {
  text: string;
  formatted: Record<string, string>;
  boundingPolys: Array<{ vertices: Vertex[] }>;
  maskingPolys: Array<{ vertices: Vertex[] }>;
}

/** CLOVA's key and `idtype` per card kind ("ID Card" and "Driver's License" are seen in answers; the others guessed). */
const CARDS = {
  resident_id: { key: 'ic', idtype: 'ID Card' },
  driver_license: { key: 'dl', idtype: "Driver's License" },
  passport: { key: 'pp', idtype: 'Passport' },
  alien_registration: { key: 'ac', idtype: 'Alien Registration Card' },
} as const;

export function clovaImageAnswer(card: CardText | undefined, name: string): Record<string, unknown> {
  const common = { uid: randomBytes(16).toString('hex'), name, validationResult: { result: 'NO_REQUESTED' } };
  if (!card) return { ...common, inferResult: 'FAILURE', message: 'No ID card was found in the image.' };
  const { key, idtype } = CARDS[card.kind ?? 'resident_id'];
  return {
    ...common,
    inferResult: 'SUCCESS',
    message: 'SUCCESS',
    idCard: {
      meta: { estimatedLanguage: 'ko' },
      result: {
        idtype,
        isConfident: card.confident !== false,
        [key]: fieldsOf(card),
        rois: [{ vertices: corners(3, 4, 750, 470) }],
      },
    },
  };
}

/** The fields each kind of card shows, in the order printed (one box per row); what the card text lacks is left out. */
function fieldsOf(card: CardText): Record<string, Field[]> {
  const fields: Record<string, Field[]> = {};
  const add = (key: string, value: string | undefined, style: 'text' | 'number' | 'date' = 'text') => {
    const row = Object.keys(fields).length;
    const field = !value
      ? undefined
      : style === 'date'
        ? dateField(value, row)
        : textField(value, row, style === 'number' ? 'back-half' : undefined);
    if (field) fields[key] = [field];
  };
  const number = residentNumberText(card);
  switch (card.kind ?? 'resident_id') {
    case 'resident_id':
      add('name', card.name);
      add('personalNum', number, 'number');
      break;
    case 'driver_license':
      add('num', card.licenseNumber && licenseNumberText(card.licenseNumber));
      add('name', card.name);
      add('personalNum', number, 'number');
      add('code', card.licenseSerial);
      break;
    case 'passport':
      // Newer passports print no resident number: only one the card text gives.
      add('fullNameKor', card.name);
      add('birthDate', card.birthDate, 'date');
      add('personalNum', card.idNumber && number, 'number');
      break;
    case 'alien_registration':
      add('alienRegNum', number, 'number');
      add('name', card.name);
      break;
  }
  add('issueDate', card.issueDate, 'date');
  return fields;
}

/**
 * The resident (or alien registration) number as printed, YYMMDD-NNNNNNN. A card text without one stands for a card
 * whose number's back half could not be read: its first seven digits, from the birth date (so the birth date is
 * still read from the number), and the rest left out.
 */
function residentNumberText(card: CardText): string | undefined {
  const digits = card.idNumber?.replace(/\D/g, '');
  if (digits) return `${digits.slice(0, 6)}-${digits.slice(6)}`;
  const born = /^(\d{2})(\d{2})-(\d{2})-(\d{2})$/.exec(card.birthDate);
  if (!born) return undefined;
  const alien = card.kind === 'alien_registration';
  const century = { '18': '9', '19': alien ? '5' : '1', '20': alien ? '7' : '3' }[born[1]!];
  return century && `${born[2]}${born[3]}${born[4]}-${century}******`;
}

const licenseNumberText = (number: string): string => {
  const d = number.replace(/\D/g, '');
  return d.length === 12 ? `${d.slice(0, 2)}-${d.slice(2, 4)}-${d.slice(4, 10)}-${d.slice(10)}` : number;
};

const corners = (x: number, y: number, width: number, height: number): Vertex[] => [
  { x, y },
  { x: x + width, y },
  { x: x + width, y: y + height },
  { x, y: y + height },
];

/** `masked`: the part CLOVA marks to mask (a number's back half, a whole date), as in the captured answer. */
function textField(
  text: string,
  row: number,
  masked?: 'back-half' | 'whole',
  formatted?: Record<string, string>,
): Field {
  const [x, y, width, height] = [60, 110 + row * 60, 320, 40];
  const mask = masked === 'back-half' ? corners(x + width / 2, y, width / 2, height) : corners(x, y, width, height);
  return {
    text,
    formatted: formatted ?? { value: text },
    boundingPolys: [{ vertices: corners(x, y, width, height) }],
    maskingPolys: masked ? [{ vertices: mask }] : [],
  };
}

function dateField(iso: string, row: number): Field | undefined {
  const [year, month, day] = iso.split('-');
  if (!year || !month || !day) return undefined;
  return textField(`${year}.${month}.${day}`, row, 'whole', { year, month, day });
}
