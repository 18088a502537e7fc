import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** An ID-card image, encrypted at rest; referenced by uploadRef. */
export const UploadEntity = defineEntity({
  name: 'Upload',
  tableName: 'uploads',
  properties: (p) => ({
    id: p.string().primary().length(64),
    /** Who may use it: a registration's regId, or kyc-renewal:<userId> (api/common/uploads.ts). */
    regId: p.string().length(64).index(),
    contentType: p.string().length(64),
    sizeBytes: p.integer(),
    sha256: p.string().length(64),
    dataSealed: p.blob(),
    /** What the ID-card reader read of it (JSON, sealed): read once, as the reader bills every reading. */
    readingSealed: p.text().nullable(),
    /** What the issuing authority answered of the card it shows: asked once, as the check is billed too. */
    checkResult: p.string().length(32).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type Upload = InferEntity<typeof UploadEntity>;
