import { randomBytes, randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import {
  BankAccountEntity,
  BankConsentAccountEntity,
  BankConsentEntity,
  UserEntity,
  bankAccountNoAad,
  bankConsentAad,
  type BankConsent,
} from '../../db/entities';
import { BankConsentRefused, type BankConsentGrant, type BankRail } from '../../integrations/bank/rail';
import type { DataEncryption } from '../../platform/data-encryption';
import { appendEvent } from '../../db/events';
import { clock } from '../../platform/clock';
import { problems } from '../http/problems';
import { maskedMatches, pairListed } from './masked-account';
import { LockMode, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { sameName } from '../../platform/names';

export interface BankConsentServiceDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankRail;
  /** Where the rail sends the person back (registered with it): this service's return route. */
  redirectUri: string;
  /** Where a finished consent may send the person on to (BANK_CONSENT_RETURN_URIS). */
  returnUris: string[];
}

/** How long the person has at the bank's screens before the consent must be asked for again. */
const RETURN_WITHIN_MS = 15 * 60_000;

/**
 * A person's consent to withdrawals at the bank rail (open banking's OAuth authorization). The API starts it (a
 * state, the rail's authorization address) and receives its return (the code exchanged for the person's token and
 * the accounts they consented to, kept sealed); the worker uses the token for withdrawals (activities/charge.ts).
 */
export class BankConsentService {
  constructor(private readonly deps: BankConsentServiceDeps) {}

  async start(userId: string, returnUri: string | undefined) {
    if (returnUri && !this.deps.returnUris.includes(returnUri))
      throw problems.unprocessable(
        'return-uri-not-registered',
        `return_uri must be one of the registered return addresses (${this.deps.returnUris.join(', ')})`,
      );
    // 32 characters: the centre asks for a random state of 32.
    const state = randomBytes(24).toString('base64url');
    const consentId = `bcs_${randomUUID()}`;
    const returnBy = new Date(clock.now() + RETURN_WITHIN_MS);
    await this.deps.orm.em.fork().insert(BankConsentEntity, {
      consentId,
      userId,
      status: 'pending',
      stateHash: this.stateHash(state),
      returnUri: returnUri ?? null,
      returnBy,
      tokenVersion: 0,
      createdAt: clock.date(),
      updatedAt: clock.date(),
    });
    return {
      consent_id: consentId,
      authorization_url: this.deps.bank.consentUrl({ state, redirectUri: this.deps.redirectUri }),
      expires_at: returnBy.toISOString(),
    };
  }

  /**
   * The rail's redirect back: the consent named by its state is completed (or failed, as the rail says). Answers the
   * consent's view and where to send the person on (its return address), if it has one.
   */
  async complete(query: { state: string; code?: string; error?: string; error_description?: string }) {
    const em = this.deps.orm.em.fork();
    const fresh = this.stateHash(query.state);
    const returned = this.deps.encryption.fingerprint(query.state, 'bank-consent-state-returned');
    const consent = await em.findOne(BankConsentEntity, { stateHash: { $in: [fresh, returned] } });
    if (!consent) throw problems.notFound('A consent with this state');
    if (consent.status !== 'pending' || consent.stateHash === returned)
      throw problems.conflict('consent-already-returned', `This consent was returned already (${consent.status})`);
    if (consent.returnBy.getTime() < clock.now()) {
      await this.fail(consent, 'the person did not come back in time');
      throw problems.gone('consent-expired', 'The consent was not completed in time; start it again');
    }
    // The state is spent before the code goes to the bank: of two returns at once (a page loaded twice), one goes on
    // and the other answers 409, and the second's refused code cannot fail the first's consent.
    const spent = await em.nativeUpdate(
      BankConsentEntity,
      { consentId: consent.consentId, status: 'pending', stateHash: fresh },
      { stateHash: returned },
    );
    if (spent !== 1) throw problems.conflict('consent-already-returned', 'This consent was returned already');
    if (query.error || !query.code) {
      await this.fail(consent, `the bank answered ${query.error ?? 'no code'}: ${query.error_description ?? ''}`);
      return { view: await this.view(consent.userId, consent.consentId), returnUri: consent.returnUri };
    }
    let grant: BankConsentGrant;
    try {
      grant = await this.deps.bank.completeConsent({ code: query.code, redirectUri: this.deps.redirectUri });
    } catch (error) {
      if (!(error instanceof BankConsentRefused)) {
        // The bank did not answer: the same return may be tried again (the browser reloaded).
        await em.nativeUpdate(
          BankConsentEntity,
          { consentId: consent.consentId, status: 'pending', stateHash: returned },
          { stateHash: fresh },
        );
        throw error;
      }
      await this.fail(consent, error.message);
      throw problems.unprocessable('consent-refused', `The bank refused the consent's code (${error.code})`);
    }
    // The consent must be the person's own: someone who started a consent and had another person complete it at the
    // bank (a link sent to them) would otherwise charge from that person's accounts. The rail's CI names the person
    // (a namesake has another); the name is compared too, and alone where the rail gives no CI.
    const person = await this.verifiedPerson(consent.userId);
    const samePerson =
      sameName(grant.personName, person.name) &&
      (grant.personCi === undefined || this.deps.encryption.fingerprint(grant.personCi, 'ci') === person.ciHash);
    if (!samePerson) {
      await this.fail(consent, 'the consent was given by another person than the account holder');
      throw problems.unprocessable(
        'consent-of-another-person',
        'The consent was given at the bank by another person than the one this account is verified as',
      );
    }
    // Only accounts in the person's own name are taken (the bank lists the holder of each).
    await this.activate(consent, {
      ...grant,
      accounts: grant.accounts.filter((a) => sameName(a.holderName, person.name)),
    });
    return { view: await this.view(consent.userId, consent.consentId), returnUri: consent.returnUri };
  }

  /** The person's latest consent (or one by id), with the accounts it covers and which connected account each is. */
  async view(userId: string, consentId?: string) {
    const em = this.deps.orm.em.fork();
    const [consent] = await em.find(BankConsentEntity, consentId ? { consentId, userId } : { userId }, {
      orderBy: { createdAt: 'desc' },
      limit: 1,
    });
    if (!consent) return { consent_id: null, status: 'none' as const, accounts: [], failure: null };
    const accounts = await em.find(
      BankConsentAccountEntity,
      { consentId: consent.consentId },
      { orderBy: { id: 'asc' } },
    );
    const linked = await em.find(BankAccountEntity, { userId, consentId: consent.consentId });
    return {
      consent_id: consent.consentId,
      status: consent.status,
      accounts: accounts.map((a) => ({
        bank_code: a.bankCode,
        bank_name: a.bankName,
        account_no: a.accountNoMasked,
        withdrawals_agreed: a.withdrawalsAgreed,
        bank_account_id: linked.find((b) => b.railAccountRef === a.railAccountRef)?.bankAccountId ?? null,
      })),
      failure: consent.failure ?? null,
    };
  }

  /**
   * The person's connected accounts the consent covers get the rail's id for withdrawals; an account connected later
   * is linked when it is (linkConnectedAccount). An earlier consent of the person is replaced.
   */
  private async activate(consent: BankConsent, grant: BankConsentGrant): Promise<void> {
    try {
      await this.activateOnce(consent, grant);
    } catch (error) {
      // Another of our users has an account this consent covers linked (the same person's consent given twice over,
      // or given for someone else): the rail's id stays with the first, this consent takes nothing.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      await this.fail(consent, 'an account the consent covers is linked to another user');
      throw problems.conflict(
        'bank-account-linked-elsewhere',
        'An account this consent covers is already connected by another user of this service',
      );
    }
  }

  private async activateOnce(consent: BankConsent, grant: BankConsentGrant): Promise<void> {
    const { encryption } = this.deps;
    const aad = bankConsentAad(consent.userId);
    await this.deps.orm.em.fork().transactional(async (tx) => {
      await lockPerson(tx, consent.userId);
      const moved = await tx.nativeUpdate(
        BankConsentEntity,
        { consentId: consent.consentId, status: 'pending' },
        {
          status: 'active',
          userRef: grant.userRef,
          accessTokenSealed: encryption.sealText(grant.tokens.accessToken, aad),
          refreshTokenSealed: encryption.sealText(grant.tokens.refreshToken, aad),
          scope: grant.tokens.scope,
          accessExpiresAt: grant.tokens.accessExpiresAt,
        },
      );
      if (moved !== 1) throw problems.conflict('consent-already-returned', 'This consent was completed meanwhile');
      await tx.nativeUpdate(
        BankConsentEntity,
        { userId: consent.userId, status: 'active', consentId: { $ne: consent.consentId } },
        { status: 'replaced' },
      );
      for (const account of grant.accounts)
        tx.create(BankConsentAccountEntity, {
          id: `bca_${randomUUID()}`,
          consentId: consent.consentId,
          userId: consent.userId,
          railAccountRef: account.accountRef,
          bankCode: account.bankCode,
          bankName: account.bankName.slice(0, 64),
          accountNoMasked: account.accountNoMasked.slice(0, 32),
          withdrawalsAgreed: account.withdrawalsAgreed,
        });
      await relinkAccounts(
        tx,
        encryption,
        consent.userId,
        consent.consentId,
        grant.accounts.map((a) => ({ ...a, railAccountRef: a.accountRef })),
      );
      await appendEvent(tx, {
        type: 'bank_consent.granted',
        resourceId: consent.consentId,
        userId: consent.userId,
        data: { consentId: consent.consentId, accounts: grant.accounts.length },
      });
    });
  }

  private async fail(consent: BankConsent, why: string): Promise<void> {
    await this.deps.orm.em
      .fork()
      .nativeUpdate(
        BankConsentEntity,
        { consentId: consent.consentId, status: 'pending' },
        { status: 'failed', failure: why.slice(0, 255) },
      );
  }

  private async verifiedPerson(userId: string): Promise<{ name: string; ciHash: string }> {
    const user = await this.deps.orm.em.fork().findOneOrFail(UserEntity, { id: userId });
    return { name: this.deps.encryption.openText(user.nameSealed, user.id), ciHash: user.ciHash };
  }

  private stateHash(state: string): string {
    return this.deps.encryption.fingerprint(state, 'bank-consent-state');
  }
}

/** An account as the bank listed it in a consent: its id for withdrawals, bank, number part hidden, agreement. */
interface Listing {
  railAccountRef: string;
  bankCode: string;
  accountNoMasked: string;
  withdrawalsAgreed: boolean;
}

/**
 * Gives each of the person's connected accounts the rail's id of the listing it is (pairListed over every listing,
 * then only one with withdrawals agreed), and takes it from the others; an account whose link does not change is
 * left alone. Unlinked first, then linked, so an id moving between two of the person's accounts never meets itself.
 */
async function relinkAccounts(
  tx: EntityManager,
  encryption: DataEncryption,
  userId: string,
  consentId: string,
  listings: readonly Listing[],
): Promise<void> {
  const connected = (await tx.find(BankAccountEntity, { userId })).map((account) => ({
    account,
    accountNo: encryption.openText(account.accountNoSealed, bankAccountNoAad(userId)),
  }));
  const pairs = pairListed(
    connected,
    listings,
    (c, listed) => listed.bankCode === c.account.bankCode && maskedMatches(listed.accountNoMasked, c.accountNo),
  );
  const wanted = (c: (typeof connected)[number]) => {
    const listed = pairs.get(c);
    return listed?.withdrawalsAgreed ? listed.railAccountRef : null;
  };
  const changing = connected.filter(
    (c) => c.account.railAccountRef !== wanted(c) || (wanted(c) !== null && c.account.consentId !== consentId),
  );
  for (const { account } of changing) {
    account.railAccountRef = null;
    account.consentId = null;
  }
  await tx.flush();
  for (const c of changing) {
    const ref = wanted(c);
    if (!ref) continue;
    c.account.railAccountRef = ref;
    c.account.consentId = consentId;
  }
  await tx.flush();
}

/**
 * A newly connected account is linked when the person's active consent covers it, and the person's other accounts at
 * its bank are paired again (a second account showing the digits a listing shows makes that listing link neither).
 * Linked to another user of ours already, an account stays without the rail's id (a charge asks for consent).
 */
export async function linkConnectedAccount(orm: Orm, userId: string, encryption: DataEncryption): Promise<void> {
  try {
    await orm.em.fork().transactional(async (tx) => {
      await lockPerson(tx, userId);
      const [consent] = await tx.find(
        BankConsentEntity,
        { userId, status: 'active' },
        { orderBy: { createdAt: 'desc' }, limit: 1 },
      );
      if (!consent) return;
      const listings = await tx.find(BankConsentAccountEntity, { consentId: consent.consentId });
      await relinkAccounts(tx, encryption, userId, consent.consentId, listings);
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
}

/**
 * The person's consents and links change one transaction at a time (PostgreSQL: their user row locked until it ends;
 * SQLite writes one at a time): two consents returning at once, or a consent and a newly connected account, each see
 * what the other committed, so one consent stays active and every link is to it.
 */
async function lockPerson(tx: EntityManager, userId: string): Promise<void> {
  await tx.findOneOrFail(UserEntity, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
