import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

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
    /**
     * The address replaced by the last email change, sealed as emailSealed, until the change can no longer be undone
     * (EMAIL_CHANGE_UNDO_SECONDS): security notices go to it too meanwhile, so a thief who changed the address cannot
     * silence them.
     */
    previousEmailSealed: p.text().nullable(),
    previousEmailUntil: p.datetime().nullable(),
    status: p.enum(['active', 'suspended', 'closed'] as const).default('active'),
    /** When the user closed the account (POST /v1/account/close): kept, not deleted, for the records the law requires. */
    closedAt: p.datetime().nullable(),
    walletType: p.string().length(32),
    /** The device that registered (every signed-in device, this one included, is a row of `devices`). */
    deviceId: p.string().length(64),
    /**
     * Fingerprint of the ID card's number read at registration (the resident registration number on a resident card):
     * a sign-in proved by ID card must show a card of this number, so another person's card with the same name and
     * birth date proves nothing. Null for accounts registered before it was kept.
     */
    idCardHash: p.string().length(64).nullable(),
    registeredAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type User = InferEntity<typeof UserEntity>;
