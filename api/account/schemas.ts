import { Type } from '@sinclair/typebox';
import { DateTime, NonEmpty } from '../common/schemas';

export const ProfileResponse = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  maskedPhone: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  walletType: Type.String(),
  registeredAt: DateTime,
  twoFactorMethods: Type.Array(Type.String()),
});

export const BasicInfoBody = Type.Object({
  full_name: NonEmpty({ maxLength: 100, description: 'Full legal name' }),
  eng_surname: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z][A-Za-z '\\-]*$" }),
  eng_name: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z][A-Za-z '\\-]*$" }),
  nationality: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' }),
  kyc_session_id: Type.Optional(NonEmpty({ maxLength: 128 })),
}, { additionalProperties: false });
export const BasicInfoResponse = Type.Object({
  step: Type.String(), completed: Type.Boolean(),
  vcId: Type.String({ description: 'The BasicInfoCredential attesting these details (GET /v1/did/vcs/{vcId})' }),
});
