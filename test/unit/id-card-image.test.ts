import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { makeIdCardPng, readCardText } from '../../sandbox/id-card-image';
import { imageDecodes, sniffImageType } from '../../integrations/id-card/image-check';
import { maskPhone } from '../../activities/registration';

/** JPEGs made by an encoder (Pillow), a baseline and a progressive one: fixtures/clova/SOURCES.md. */
const jpeg = (name: 'baseline' | 'progressive') =>
  readFileSync(join(__dirname, '../contract/fixtures/clova', `image-${name}.jpg`));
/** A PNG chunk with its length and CRC. */
const chunk = (type: string, data: Buffer) => {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const [length, crc] = [Buffer.alloc(4), Buffer.alloc(4)];
  length.writeUInt32BE(data.length);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
};
/** A greyscale 8-bit PNG of `width` x `height` whose image data is `pixels` deflated (right when one byte a pixel and a filter byte a row). */
const png = (width: number, height: number, pixels: Buffer, extra: Buffer[] = []) => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  return Buffer.concat([
    makeIdCardPng({ name: 'x', birthDate: '1990-01-01' }).subarray(0, 8),
    chunk('IHDR', header),
    ...extra,
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

/** A PNG of `width` x `height` whose one IDAT chunk holds `data` as it is (no deflate). */
const pngWithData = (width: number, height: number, data: Buffer) => {
  const valid = png(width, height, Buffer.alloc(0));
  const idat = valid.indexOf('IDAT') - 4;
  return Buffer.concat([valid.subarray(0, idat), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
};

describe('ID-card images', () => {
  it('round-trips the card text through a valid PNG', () => {
    const png = makeIdCardPng({ name: '홍길동', birthDate: '1990-01-15' });
    expect(sniffImageType(png)).toBe('image/png');
    expect(readCardText(png)).toEqual({ name: '홍길동', birthDate: '1990-01-15' });
  });

  it('recognises JPEG and refuses other bytes', () => {
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(readCardText(Buffer.from('not a png'))).toBeUndefined();
  });

  it('decodes the PNGs the sandbox makes and JPEGs an encoder made, baseline and progressive', async () => {
    expect(await imageDecodes(makeIdCardPng({ name: '홍길동', birthDate: '1990-01-15' }), 'image/png')).toBe(true);
    expect(await imageDecodes(png(3, 2, Buffer.from([0, 1, 2, 3, 1, 4, 5, 6])), 'image/png')).toBe(true);
    expect(await imageDecodes(jpeg('baseline'), 'image/jpeg')).toBe(true);
    expect(await imageDecodes(jpeg('progressive'), 'image/jpeg')).toBe(true);
  });

  it('does not decode an image cut short, corrupt, or of another type than said', async () => {
    const card = makeIdCardPng({ name: '홍길동', birthDate: '1990-01-15' });
    const flipped = Buffer.from(card);
    flipped[flipped.length - 20] ^= 0xff; // inside IDAT: its CRC no longer holds
    for (const [image, type] of [
      [card.subarray(0, card.length - 40), 'image/png'], // cut short inside its image data (a PNG missing only its IEND still decodes whole)
      [flipped, 'image/png'],
      [pngWithData(3, 2, Buffer.from('not zlib')), 'image/png'], // image data that is not a zlib stream
      [jpeg('baseline').subarray(0, jpeg('baseline').length - 2), 'image/jpeg'], // no EOI
      [jpeg('progressive').subarray(0, 400), 'image/jpeg'],
      [card, 'image/jpeg'],
      [jpeg('baseline'), 'image/png'],
    ] as const)
      expect(await imageDecodes(image, type)).toBe(false);
    // A decompression bomb: a small file whose header claims more than MAX_IMAGE_PIXELS (refused before any pixel).
    expect(await imageDecodes(png(20_000, 20_000, Buffer.alloc(1024)), 'image/png')).toBe(false);
    // A JPEG whose entropy-coded data is damaged (bytes overwritten inside its scan): a warning of the decoder, refused.
    const damaged = Buffer.from(jpeg('baseline'));
    const scan = damaged.lastIndexOf(Buffer.from([0xff, 0xda]));
    damaged.fill(0xff, scan + 40, scan + 80);
    expect(await imageDecodes(damaged, 'image/jpeg')).toBe(false);
  });

  it('masks phone numbers for display', () => {
    expect(maskPhone('01012345678')).toBe('010-****-5678');
    expect(maskPhone('010-1234-5678')).toBe('010-****-5678');
    expect(maskPhone('123')).toBe('***');
  });
});
