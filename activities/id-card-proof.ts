import type { Orm } from '../db/orm';
import { UploadEntity, type Upload } from '../db/entities';
import type { IdCardReader, IdCardReading } from '../integrations/id-card/reader';
import {
  ID_CARD_CHECK_RESULTS,
  type IdCardAuthenticity,
  type IdCardCheckResult,
} from '../integrations/id-card/authenticity';
import type { DataEncryption } from '../platform/data-encryption';

export interface IdCardProofDeps {
  orm: Orm;
  encryption: DataEncryption;
  idCardReader: IdCardReader;
  idCardCheck: IdCardAuthenticity;
}

/** The associated data a reading is sealed with: the reading of one upload opens only as its own. */
const readingAad = (uploadId: string) => `id-card-reading:${uploadId}`;

/**
 * What an uploaded ID card reads as. Neither the reader nor the authenticity check takes an idempotency key, and both
 * bill every call: a reading is kept with its upload (sealed), so an activity retried after it (the check failing, a
 * worker dying) is not billed for it again. A call cut off before its answer came back is billed again: accepted.
 */
export async function readUploadedCard(
  deps: Pick<IdCardProofDeps, 'orm' | 'encryption' | 'idCardReader'>,
  upload: Upload,
  requestId: string,
): Promise<IdCardReading> {
  const { orm, encryption, idCardReader } = deps;
  if (upload.readingSealed)
    return JSON.parse(encryption.openText(upload.readingSealed, readingAad(upload.id))) as IdCardReading;
  const reading = await idCardReader.read({
    image: encryption.open(Buffer.from(upload.dataSealed), upload.id),
    contentType: upload.contentType,
    requestId,
  });
  await orm.em
    .fork()
    .nativeUpdate(
      UploadEntity,
      { id: upload.id },
      { readingSealed: encryption.sealText(JSON.stringify(reading), readingAad(upload.id)) },
    );
  return reading;
}

/**
 * The issuing authority's answer for the card an upload shows (as read), asked once per upload for the same reason.
 * A card whose kind is not one the person named, or whose details the check needs were not read, is not asked about.
 */
export async function checkUploadedCard(
  deps: Pick<IdCardProofDeps, 'orm' | 'idCardCheck'>,
  upload: Upload,
  reading: IdCardReading,
  requestId: string,
): Promise<IdCardCheckResult> {
  const known = ID_CARD_CHECK_RESULTS.find((r) => r === upload.checkResult);
  if (known) return known;
  if (reading.kind === 'unknown' || (reading.kind === 'driver_license' && !reading.licenseSerial)) return 'mismatch';
  const result = await deps.idCardCheck.check(
    {
      kind: reading.kind,
      name: reading.name,
      birthDate: reading.birthDate,
      idNumber: reading.idNumber,
      issueDate: reading.issueDate,
      licenseNumber: reading.licenseNumber,
      licenseSerial: reading.licenseSerial,
    },
    requestId,
  );
  await deps.orm.em.fork().nativeUpdate(UploadEntity, { id: upload.id }, { checkResult: result });
  return result;
}

/**
 * Whether a reading is the card the person said it is, read well enough to rely on. A driver's licence must show its
 * number and the serial under its photo: without the serial the authority confirms a licence, not this card (an old
 * card of a licence reported lost and replaced, its serial covered, would pass).
 */
export const readsAsDeclared = (reading: IdCardReading, idCardType: string): boolean =>
  reading.confident &&
  reading.kind === idCardType &&
  !!reading.name &&
  !!reading.birthDate &&
  (reading.kind !== 'driver_license' || (!!reading.licenseNumber && !!reading.licenseSerial));
