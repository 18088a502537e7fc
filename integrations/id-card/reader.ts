/**
 * The ID-card reader port: reads a photographed Korean ID card. One adapter per real provider
 * (integrations/id-card/clova-ocr.ts: NAVER CLOVA OCR's ID-card model), chosen by ID_CARD_OCR_PROVIDER.
 */

/** The cards the service takes, by the names of the interface's `idCardType`. */
export const ID_CARD_KINDS = ['resident_id', 'driver_license', 'passport', 'alien_registration'] as const;
export type IdCardKind = (typeof ID_CARD_KINDS)[number];

/**
 * What the reader read. `confident`: the provider's own judgement that the reading is reliable (a blurred or partly
 * hidden card is not). Fields a card does not show, or that could not be read, are absent.
 */
export interface IdCardReading {
  /** The kind of card the reader recognised (not the kind the person said); `unknown` when it recognised none. */
  kind: IdCardKind | 'unknown';
  confident: boolean;
  /** The holder's name as printed ('' when unreadable). */
  name: string;
  /** YYYY-MM-DD, from the resident registration number (its first six digits and the century digit). */
  birthDate: string;
  /** The resident registration number (주민등록번호), 13 digits, on resident cards and driver's licences. */
  idNumber?: string;
  /** YYYY-MM-DD, the card's issue date. */
  issueDate?: string;
  /** Driver's licence: the licence number, 12 digits (region, year, serial, check). */
  licenseNumber?: string;
  /** Driver's licence: the serial printed under the small photo (암호일련번호), 5 or 6 letters and digits. */
  licenseSerial?: string;
}

export interface IdCardReader {
  /**
   * Reads one image. `requestId` identifies the request at the provider (for its logs and ours); providers do not
   * deduplicate by it, so the caller keeps a reading it already paid for (activities/id-card-proof.ts).
   */
  read(input: { image: Buffer; contentType: string; requestId: string }): Promise<IdCardReading>;
}
