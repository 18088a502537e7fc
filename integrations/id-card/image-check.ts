/**
 * Whether an ID-card image is one a reader can decode: PNG or JPEG, recognised by their leading bytes (the API's upload
 * check), then decoded whole by libvips (sharp: libpng and libjpeg-turbo, which fail on a warning here: a truncated
 * or corrupt image is refused, not read as far as it goes). A bad upload fails here, before a reader is asked (and
 * billed) for it. sharp is loaded on the first check (the worker, once per reading), never by the API process.
 */

export type IdCardImageType = 'image/jpeg' | 'image/png';

const SIGNATURES: Array<{ type: IdCardImageType; bytes: number[] }> = [
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
];

/** The image's format by its leading bytes rather than a declared type. */
export const sniffImageType = (buffer: Buffer): IdCardImageType | undefined =>
  SIGNATURES.find(({ bytes }) => buffer.length >= bytes.length && bytes.every((b, i) => buffer[i] === b))?.type;

/**
 * The most pixels an image may have (100 megapixels, past any phone camera): beyond it a small file is a
 * decompression bomb, not a photographed card, and is refused before its pixels are decoded.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

let loaded: Promise<typeof import('sharp')> | undefined;
/** sharp, once: no cache of decoded images, one thread a decode (a check is a pass over the pixels, not a render). */
const sharpModule = () =>
  (loaded ??= import('sharp').then((module) => {
    module.default.cache(false);
    module.default.concurrency(1);
    return module;
  }));

/**
 * Whether `image` decodes as the format its bytes say, which must be `type`. The pixels are read in one streaming pass
 * (statistics of every channel, sequential access): a 100-megapixel image is checked in about a megabyte of memory,
 * never decoded whole into it.
 */
export async function imageDecodes(image: Buffer, type: IdCardImageType): Promise<boolean> {
  if (sniffImageType(image) !== type) return false;
  const { default: sharp } = await sharpModule();
  try {
    const decoded = sharp(image, { failOn: 'warning', limitInputPixels: MAX_IMAGE_PIXELS, sequentialRead: true });
    const { format } = await decoded.metadata();
    if (format !== (type === 'image/png' ? 'png' : 'jpeg')) return false;
    await decoded.stats();
    return true;
  } catch {
    return false;
  }
}
