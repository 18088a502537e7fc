import { Type } from '@sinclair/typebox';
import { IdentityCheckId } from '../passkeys/schemas';

export const Jwe = (description: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$', maxLength: 2048, description });

export const PinPublicKey = Type.Object({
  alg: Type.String(),
  enc: Type.String(),
  jwk: Type.Record(Type.String(), Type.Unknown()),
});
export const PinStatus = Type.Object({ pin_set: Type.Boolean() });
const IdentityCheck = (approves: string) => Type.Optional(IdentityCheckId(approves));
export const SetPinBody = Type.Object(
  {
    pin: Jwe('the new PIN, encrypted'),
    identityCheckId: IdentityCheck(
      '{"action":"pin_set","new_pin_sha256":"<base64url SHA-256 of pin as sent>"}, proved with the ID card',
    ),
  },
  { additionalProperties: false },
);
/** The PIN set during registration, with its pass token (before the first access token). */
export const RegistrationPinBody = Type.Object({ pin: Jwe('the PIN, encrypted') }, { additionalProperties: false });
export const ResetPinBody = Type.Object(
  {
    new_pin: Jwe('the new PIN, encrypted'),
    identityCheckId: IdentityCheck(
      '{"action":"pin_reset","new_pin_sha256":"<base64url SHA-256 of new_pin as sent>"}, proved with the ID card',
    ),
  },
  { additionalProperties: false },
);
export const ChangePinBody = Type.Object(
  {
    // Optional in the schema so a change without it is answered by the step-up (422 step-up-required, naming the request).
    current_pin: Type.Optional(
      Jwe(
        'the current PIN, encrypted, approving this change to this new PIN: {"pin","iat","jti","request":{"action":"pin_change","new_pin_sha256":"<base64url SHA-256 of the new_pin field as sent>"}}; without it: 422 step-up-required',
      ),
    ),
    new_pin: Jwe('the new PIN, encrypted'),
  },
  { additionalProperties: false },
);
export const PinChanged = Type.Object({ changed: Type.Boolean() });
