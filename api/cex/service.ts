import { createHash, randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { CexAccountEntity, CexAuthorizationEntity, type CexAccount } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { CexClient } from '../../integrations/cex';
import type { ExchangeAccounts, ExchangeName } from '../../integrations/exchange/accounts';
import { isProviderRejection } from '../common/provider-rejection';
import { ProviderUnavailable } from '../../integrations/provider-http';
import { problems } from '../http/problems';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type Page, type PageRequest } from '../http/pagination';

const CEX_ORDER: KeysetOrder<'registeredAt' | 'cexAccountId'> = {
  list: 'cex-accounts',
  fields: ['registeredAt', 'cexAccountId'],
  kinds: ['date', 'string'],
  order: 'asc',
};

export interface CexServiceDeps {
  orm: Orm;
  encryption: DataEncryption;
  cex: CexClient;
  /** The exchanges a key pair connects an account at. */
  exchanges: Record<ExchangeName, ExchangeAccounts>;
  provider: string;
  redirectUris: string[];
}

const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;

export const cexAccountView = (a: CexAccount) => ({
  cexAccountId: a.cexAccountId,
  provider: a.provider,
  label: a.label,
  authMethod: a.authMethod,
  permissions: { read: a.canRead, withdraw: a.canWithdraw },
  lastSyncAt: a.lastSyncAt?.toISOString() ?? null,
  registeredAt: a.registeredAt.toISOString(),
});

/** Refusals of the request as we built it, not of the person's key. */
const OUR_FAULTS = new Set(['invalid_query_payload', 'nonce_used', 'no_authorization_token']);

/** What the person should do about an exchange's refusal of their key pair, by the exchange's error name. */
function keyRefusal(provider: ExchangeName, name: string): string {
  if (['no_authorization_ip', 'no_authorization_i_p', 'NotAllowIP'].includes(name))
    return `${provider} refused our address (${name}): add the service's outbound IP address to the key's allowed IPs`;
  if (name === 'out_of_scope')
    return `The key lacks the View Account (자산조회) permission (${name}): issue a key with it, and nothing more`;
  if (['expired_access_key', 'expired_jwt'].includes(name))
    return `The key has expired (${name}): ${provider} keys last a year; issue a new one`;
  return `${provider} refused the key pair (${name}): check the access key and the secret key`;
}

/**
 * What a person is told when they connect a key: neither exchange tells a key its own permissions (docs/providers.md),
 * so the service cannot check that it only reads; it used the key once and kept nothing.
 */
export const CEX_KEY_NOTICE =
  'The service cannot see which permissions this key has (neither Upbit nor Bithumb tells a key its own). It used the key ' +
  'once, to read these balances, and did not keep it. At the exchange, keep the key to View Account (자산조회) only, ' +
  "no orders, withdrawals or deposits, limited to the service's IP address; or delete it now: to refresh the " +
  'balances, connect a key again.';

/** The same for the deprecated OAuth flow's tokens. */
export const CEX_TOKEN_NOTICE =
  "The service used the exchange's tokens once, to read these balances, and did not keep them.";

/**
 * Exchange (CEX) accounts connected with the person's API key pair (`connectWithKey`: Upbit, Bithumb): the key is
 * used once, to check it by reading the balances, and never kept (connecting the same key again reads them again);
 * or, deprecated, by OAuth 2.0 authorization code with PKCE (read scope only): `authorize` records a single-use state
 * with its sealed verifier and answers where to send the user; `connect` claims the state, exchanges the code, reads
 * the profile and balances once, and keeps no token.
 */
export class CexAccountService {
  constructor(private readonly deps: CexServiceDeps) {}

  async authorize(
    userId: string,
    input: { redirectUri: string; label?: string; scopes?: Array<'read'>; loginHint?: string },
  ) {
    const { orm, encryption, cex, provider, redirectUris } = this.deps;
    if (!redirectUris.includes(input.redirectUri)) {
      throw problems.unprocessable(
        'redirect-uri-not-registered',
        `redirectUri must be one of: ${redirectUris.join(', ')}`,
      );
    }
    const state = randomUUID().replace(/-/g, '');
    const { verifier, challenge } = CexClient.pkce();
    const expiresAt = new Date(clock.now() + AUTHORIZATION_TTL_MS);
    const em = orm.em.fork();
    em.create(CexAuthorizationEntity, {
      state,
      userId,
      provider,
      label: input.label ?? provider,
      redirectUri: input.redirectUri,
      codeVerifierSealed: encryption.sealText(verifier, state),
      expiresAt,
    });
    await em.flush();
    const authorizationUrl = cex.authorizationUrl({
      state,
      redirectUri: input.redirectUri,
      scopes: input.scopes ?? ['read'],
      codeChallenge: challenge,
      loginHint: input.loginHint,
    });
    return { authorizationUrl, state, expiresAt: expiresAt.toISOString() };
  }

  async connect(userId: string, input: { state: string; code: string }): Promise<CexAccount> {
    const { orm, encryption, cex } = this.deps;
    const em = orm.em.fork();
    const authorization = await em.findOne(CexAuthorizationEntity, { state: input.state, userId });
    if (!authorization) throw problems.notFound('Authorization');
    if (authorization.expiresAt.getTime() < clock.now())
      throw problems.gone('authorization-expired', 'The authorization expired; start again');
    const claimed = await em.nativeUpdate(
      CexAuthorizationEntity,
      { state: input.state, usedAt: null },
      { usedAt: clock.date() },
    );
    if (claimed !== 1) throw problems.conflict('authorization-used', 'This authorization was already used');
    const tokens = await cex.exchangeCode({
      code: input.code,
      redirectUri: authorization.redirectUri,
      codeVerifier: encryption.openText(authorization.codeVerifierSealed, input.state),
    });
    const profile = await cex.profile(tokens.access_token);
    const balances = profile.permissions.read ? await cex.balances(tokens.access_token) : [];
    const cexAccountId = `cex_${randomUUID()}`;
    try {
      return await orm.em.fork().transactional(async (tx) =>
        tx.create(CexAccountEntity, {
          cexAccountId,
          userId,
          provider: authorization.provider,
          label: authorization.label,
          externalAccountId: profile.accountId,
          canRead: profile.permissions.read,
          canWithdraw: profile.permissions.withdraw,
          balances,
          lastSyncAt: profile.permissions.read ? clock.date() : null,
        }),
      );
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw problems.conflict('cex-account-already-connected', 'This exchange account is already connected');
      throw error;
    }
  }

  /**
   * Checks a key pair by reading the balances with it, and keeps the balances, never the key. The same key connected
   * again (`refreshed`) reads the balances again into the same account.
   */
  async connectWithKey(
    userId: string,
    input: { provider: ExchangeName; accessKey: string; secretKey: string; label?: string },
  ): Promise<{ account: CexAccount; refreshed: boolean }> {
    const { orm, exchanges } = this.deps;
    const keys = { accessKey: input.accessKey, secretKey: input.secretKey };
    let balances: Array<{ currency: string; balance: string }>;
    try {
      balances = await exchanges[input.provider].balances(keys);
    } catch (error) {
      if (!isProviderRejection(error)) throw error;
      const [answer] = ((error as { details?: unknown[] }).details ?? []) as Array<{ name?: string } | undefined>;
      const name = answer?.name ?? 'no reason';
      // Refusals of how we signed (a hash, a nonce, the header) are ours to fix, not the person's: try again later.
      if (OUR_FAULTS.has(name)) throw new ProviderUnavailable(`${input.provider} refused our signed request (${name})`);
      throw problems.unprocessable('cex-key-refused', keyRefusal(input.provider, name));
    }
    // The same key connected twice is one account, found by a digest of the access key (never kept in clear).
    const externalAccountId = `key:${createHash('sha256').update(input.accessKey).digest('hex').slice(0, 40)}`;
    const where = { userId, provider: input.provider, externalAccountId };
    const refresh = async () => {
      const em = orm.em.fork();
      const account = await em.findOne(CexAccountEntity, where);
      if (!account) return undefined;
      em.assign(account, { balances, lastSyncAt: clock.date(), ...(input.label ? { label: input.label } : {}) });
      await em.flush();
      return { account, refreshed: true };
    };
    const known = await refresh();
    if (known) return known;
    try {
      const account = await orm.em.fork().transactional(async (tx) =>
        tx.create(CexAccountEntity, {
          cexAccountId: `cex_${randomUUID()}`,
          ...where,
          label: input.label ?? input.provider,
          authMethod: 'api_key',
          canRead: true,
          // The service never withdraws, and keeps no key to: what the key itself could do, it cannot tell (no
          // exchange tells a key its own permissions).
          canWithdraw: false,
          balances,
          lastSyncAt: clock.date(),
        }),
      );
      return { account, refreshed: false };
    } catch (error) {
      // The same key connected twice at once: the other request made the account; this one reads into it.
      if (error instanceof UniqueConstraintViolationException) return (await refresh())!;
      throw error;
    }
  }

  /** The user's connected accounts, oldest first, a page at a time. */
  async page(userId: string, page: PageRequest): Promise<Page<CexAccount>> {
    return findPage(this.deps.orm.em.fork(), CexAccountEntity, { userId }, CEX_ORDER, page, {
      defaultLimit: 50,
      whole: true,
    });
  }

  /** Disconnects an account: its row (the balances last read) is deleted. */
  async remove(userId: string, cexAccountId: string): Promise<void> {
    const removed = await this.deps.orm.em.fork().nativeDelete(CexAccountEntity, { cexAccountId, userId });
    if (removed !== 1) throw problems.notFound(`CEX account ${cexAccountId}`);
  }

  async get(userId: string, cexAccountId: string): Promise<CexAccount> {
    const account = await this.deps.orm.em.fork().findOne(CexAccountEntity, { cexAccountId, userId });
    if (!account) throw problems.notFound(`CEX account ${cexAccountId}`);
    return account;
  }
}
