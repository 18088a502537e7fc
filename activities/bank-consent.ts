import type { Orm } from '../db/orm';
import { BankAccountEntity, BankConsentEntity, bankConsentAad, type BankConsent } from '../db/entities';
import { BankConsentRefused, type BankRail, type TransferRequester } from '../integrations/bank/rail';
import type { DataEncryption } from '../platform/data-encryption';
import { clock } from '../platform/clock';

/** A consent's token is renewed this long before it expires (open banking tokens live 90 days). */
const REFRESH_BEFORE_MS = 30 * 24 * 3600_000;

/**
 * The person's consent token for a withdrawal: the one on file, renewed first when it expires within 30 days. A
 * renewal is kept only if no other process renewed first (tokenVersion); one the rail refuses ends the consent
 * (`expired`) and unlinks its accounts, so the next charge asks for consent again. Undefined: no usable consent.
 */
export async function consentToken(
  deps: { orm: Orm; encryption: DataEncryption; bank: BankRail },
  consentId: string,
): Promise<string | undefined> {
  const { orm, encryption, bank } = deps;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const consent = await orm.em.fork().findOne(BankConsentEntity, { consentId, status: 'active' });
    if (!consent?.accessTokenSealed || !consent.refreshTokenSealed || !consent.accessExpiresAt) return undefined;
    const open = (sealed: string) => encryption.openText(sealed, bankConsentAad(consent.userId));
    if (consent.accessExpiresAt.getTime() - clock.now() > REFRESH_BEFORE_MS) return open(consent.accessTokenSealed);
    let tokens;
    try {
      tokens = await bank.refreshConsent(open(consent.refreshTokenSealed));
    } catch (error) {
      if (!(error instanceof BankConsentRefused)) throw error;
      // Another process may have renewed it with the same refresh token first: read it again before giving up.
      if (await renewedSince(orm, consent)) continue;
      await endConsent(orm, consent, `the bank refused to renew the consent (${error.code})`);
      return undefined;
    }
    const kept = await orm.em.fork().nativeUpdate(
      BankConsentEntity,
      { consentId, tokenVersion: consent.tokenVersion },
      {
        accessTokenSealed: encryption.sealText(tokens.accessToken, bankConsentAad(consent.userId)),
        refreshTokenSealed: encryption.sealText(tokens.refreshToken, bankConsentAad(consent.userId)),
        scope: tokens.scope,
        accessExpiresAt: tokens.accessExpiresAt,
        tokenVersion: consent.tokenVersion + 1,
      },
    );
    if (kept === 1) return tokens.accessToken;
  }
  return undefined;
}

const renewedSince = async (orm: Orm, consent: BankConsent): Promise<boolean> =>
  (await orm.em.fork().count(BankConsentEntity, {
    consentId: consent.consentId,
    status: 'active',
    tokenVersion: { $gt: consent.tokenVersion },
  })) > 0;

/** The consent no longer holds (the rail refused its token, or withdrawals from an account): consent again. */
export async function endConsent(orm: Orm, consent: Pick<BankConsent, 'consentId' | 'userId'>, why: string) {
  await orm.em.fork().transactional(async (tx) => {
    await tx.nativeUpdate(
      BankConsentEntity,
      { consentId: consent.consentId, status: 'active' },
      { status: 'expired', failure: why.slice(0, 255) },
    );
    await tx.nativeUpdate(
      BankAccountEntity,
      { userId: consent.userId, consentId: consent.consentId },
      { railAccountRef: null, consentId: null },
    );
  });
}

/** The person as the rail names them in a transfer: the verified name and a member number of ours for them. */
export const transferRequester = (
  encryption: DataEncryption,
  user: { id: string; nameSealed: string },
): TransferRequester => ({
  name: encryption.openText(user.nameSealed, user.id),
  // req_client_num: AN(20), upper-case letters and digits; derived, so it reveals nothing of the user id.
  memberId: encryption.derivedId(user.id, 'bank-member-number', 20).toUpperCase(),
});
