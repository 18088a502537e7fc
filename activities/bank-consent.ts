import type { Orm } from '../db/orm';
import { BankAccountEntity, BankConsentEntity, bankConsentAad, type BankConsent } from '../db/entities';
import { BankConsentRefused, type BankRail, type TransferRequester } from '../integrations/bank/rail';
import type { DataEncryption } from '../platform/data-encryption';
import { clock } from '../platform/clock';

/** A consent's token is renewed this long before it expires (open banking tokens live 90 days). */
const REFRESH_BEFORE_MS = 30 * 24 * 3600_000;
/** How long one process's claim to renew a token holds: well past a token request's timeout. */
const RENEWAL_LEASE_MS = 5 * 60_000;

/**
 * The person's consent token for a withdrawal: the one on file, renewed first when it expires within 30 days. One
 * process renews at a time: it claims the renewal (tokenVersion, compared and set) before calling the rail, and the
 * others use the token on file meanwhile (still valid: renewals start 30 days early), so a rail that spends a refresh
 * token on first use never sees it twice. A renewal the rail refuses ends the consent (`expired`) and unlinks its
 * accounts, so the next charge asks for consent again. Undefined: no usable consent.
 */
export async function consentToken(
  deps: { orm: Orm; encryption: DataEncryption; bank: BankRail },
  consentId: string,
): Promise<string | undefined> {
  const { orm, encryption, bank } = deps;
  const consent = await orm.em.fork().findOne(BankConsentEntity, { consentId, status: 'active' });
  if (!consent?.accessTokenSealed || !consent.refreshTokenSealed || !consent.accessExpiresAt) return undefined;
  const open = (sealed: string) => encryption.openText(sealed, bankConsentAad(consent.userId));
  const current = consent.accessExpiresAt.getTime() > clock.now() ? open(consent.accessTokenSealed) : undefined;
  if (consent.accessExpiresAt.getTime() - clock.now() > REFRESH_BEFORE_MS) return current;
  // tokenVersion: even at rest, odd while a process renews (claimed at updatedAt). A claim older than the lease was
  // left by a process that died: taken over.
  const renewing = consent.tokenVersion % 2 === 1;
  if (renewing && consent.updatedAt.getTime() > clock.now() - RENEWAL_LEASE_MS) return current;
  const claim = consent.tokenVersion + (renewing ? 2 : 1);
  const claimed = await orm.em
    .fork()
    .nativeUpdate(
      BankConsentEntity,
      { consentId, status: 'active', tokenVersion: consent.tokenVersion },
      { tokenVersion: claim, updatedAt: clock.date() },
    );
  if (claimed !== 1) return current; // another process renews it
  let tokens;
  try {
    tokens = await bank.refreshConsent(open(consent.refreshTokenSealed));
  } catch (error) {
    if (!(error instanceof BankConsentRefused)) throw error;
    await endConsent(orm, consent, `the bank refused to renew the consent (${error.code})`);
    return undefined;
  }
  const kept = await orm.em.fork().nativeUpdate(
    BankConsentEntity,
    { consentId, status: 'active', tokenVersion: claim },
    {
      accessTokenSealed: encryption.sealText(tokens.accessToken, bankConsentAad(consent.userId)),
      refreshTokenSealed: encryption.sealText(tokens.refreshToken, bankConsentAad(consent.userId)),
      scope: tokens.scope,
      accessExpiresAt: tokens.accessExpiresAt,
      tokenVersion: claim + 1,
    },
  );
  // Not kept: the consent ended or was replaced meanwhile, and its token goes with it.
  return kept === 1 ? tokens.accessToken : undefined;
}

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
