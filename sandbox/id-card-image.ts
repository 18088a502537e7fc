import { crc32, deflateSync } from 'node:zlib';
import type { IdCardKind } from '../integrations/id-card/reader';

/**
 * The sandbox OCR cannot read pixels; it reads what a card "says" from a PNG tEXt chunk named `ocr` (this JSON).
 * Real images without the chunk read as no card.
 */
export interface CardText {
  /** The card's kind; a resident card by default. */
  kind?: IdCardKind;
  name: string;
  /** YYYY-MM-DD. A card that shows a resident number carries the birth date in it, as its first six digits. */
  birthDate: string;
  /** The resident registration number (the alien registration number on an alien card), 13 digits. */
  idNumber?: string;
  /** YYYY-MM-DD */
  issueDate?: string;
  /** Driver's licence: the licence number, 12 digits (with or without its hyphens). */
  licenseNumber?: string;
  /** Driver's licence: the serial under the small photo (암호일련번호), 5 or 6 letters and digits. */
  licenseSerial?: string;
  /** Whether the reader is sure of what it read (false: a blurred or partly hidden card); true by default. */
  confident?: boolean;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const chunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
};

/** A valid 1x1 PNG carrying the card text; `padBytes` grows it (for size-limit tests). */
export function makeIdCardPng(text: CardText, padBytes = 0): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  const pixels = deflateSync(Buffer.from([0, 0x80]));
  const textChunk = Buffer.concat([Buffer.from('ocr\0', 'latin1'), Buffer.from(JSON.stringify(text), 'utf8')]);
  const padding = padBytes > 0 ? [chunk('pdNG', Buffer.alloc(padBytes))] : [];
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('tEXt', textChunk),
    ...padding,
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function readCardText(image: Buffer): CardText | undefined {
  if (image.length < 8 || !image.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  for (let offset = 8; offset + 8 <= image.length;) {
    const length = image.readUInt32BE(offset);
    const type = image.toString('latin1', offset + 4, offset + 8);
    const data = image.subarray(offset + 8, offset + 8 + length);
    if (type === 'tEXt') {
      const separator = data.indexOf(0);
      if (data.toString('latin1', 0, separator) === 'ocr') {
        try {
          return JSON.parse(data.subarray(separator + 1).toString('utf8')) as CardText;
        } catch {
          return undefined;
        }
      }
    }
    offset += 12 + length;
  }
  return undefined;
}
