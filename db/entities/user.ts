import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: (p) => ({
    id: p.string().primary().length(64),
    regId: p.string().unique().length(64),
    ciHash: p.string().unique().length(64),
    /** Sealed name and phone (PII); the masked phone is kept for display. */
    nameSealed: p.text(),
    phoneSealed: p.text(),
    maskedPhone: p.string().length(32),
    /** The verified email address, sealed (emailAad); null until the user confirms one (POST /v1/account/email/confirm). */
    emailSealed: p.text().nullable(),
    emailVerifiedAt: p.datetime().nullable(),
    status: p.enum(['active', 'suspended', 'closed'] as const).default('active'),
    /** When the user closed the account (POST /v1/account/close): kept, not deleted, for the records the law requires. */
    closedAt: p.datetime().nullable(),
    walletType: p.string().length(32),
    deviceId: p.string().length(64),
    registeredAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type User = InferEntity<typeof UserEntity>;
