/** Names compare equal when they match after Unicode normalisation and without spaces (identity, OCR, bank holder). */
export const sameName = (a: string, b: string): boolean =>
  a.normalize('NFC').replace(/\s+/g, '') === b.normalize('NFC').replace(/\s+/g, '');
