import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { HotStatement } from '../db/sql';
import {
  CexAccountEntity,
  CexAuthorizationEntity,
  LedgerAccountEntity,
  SolanaWalletEntity,
  UserEntity,
  VerifiableCredentialEntity,
} from '../db/entities';
import { appendEvent } from '../db/events';
import { moneyInMotion } from '../db/money-in-motion';
import type { NetworkRegistry } from '../platform/networks';
import type { SolanaChains } from '../integrations/solana';
import type {
  AccountClosureInput,
  AccountClosureOutcome,
  ClosureBlocker,
  CredentialRevocationInput,
  CredentialRevocationOutcome,
} from '../workflows/messages';
import type { CredentialBook } from './credentials';
import { clock } from '../platform/clock';

export interface AccountActivityDeps {
  orm: Orm;
  credentials: CredentialBook;
  networks: NetworkRegistry;
  solanaChains: SolanaChains;
}

/**
 * The fence between a closure and money about to move: whether the user is still active, read with a no-op write
 * that waits for a closure under way to commit or roll back (its row lock). Called before a charge asks the bank for
 * money and before a Solana transfer is signed (an EVM transfer's fence is its gas sponsorship's lock of the same row,
 * which reads the status: activities/gas-sponsorship.ts): either the closure committed first (and nothing moves), or
 * it comes after and sees the charge or transfer in progress, and is refused.
 */
export async function userIsActive(orm: Orm, userId: string): Promise<boolean> {
  return (await USER_ACTIVE_FENCE.rows(orm.em.fork(), [userId])).length === 1;
}

/** userIsActive's no-op write: prepared on PostgreSQL. */
const USER_ACTIVE_FENCE = new HotStatement<{ id: string }>(
  'user-active-fence',
  "update users set status = 'active' where id = ? and status = 'active' returning id",
);

/** Raised inside the closing transaction to roll it back with what stopped it. */
class ClosureRefused extends Error {
  constructor(readonly blockers: ClosureBlocker[]) {
    super('the account cannot be closed');
  }
}

/** Closing an account and revoking credentials: both re-sign status lists, so both run here, with the issuer key. */
export const createAccountActivities = ({ orm, credentials, networks, solanaChains }: AccountActivityDeps) => {
  /** Coins and tokens on the Solana wallet whose key the service holds for the user: closing would strand them. */
  async function custodialBalances(userId: string): Promise<ClosureBlocker[]> {
    const wallet = await orm.em.fork().findOne(SolanaWalletEntity, { userId });
    if (!wallet) return [];
    const blockers: ClosureBlocker[] = [];
    for (const networkId of networks.ids()) {
      const network = networks.solana(networkId);
      if (!network) continue;
      const chain = solanaChains.for(network);
      const holdings: Array<[string, bigint]> = [['SOL', await chain.balance(wallet.address)]];
      for (const symbol of Object.keys(network.tokens ?? {}))
        holdings.push([symbol, await chain.tokenBalance(wallet.address, symbol)]);
      for (const [symbol, amount] of holdings) {
        if (amount > 0n)
          blockers.push({
            reason: 'custodial-balance',
            detail: `${symbol} on ${networkId} at ${wallet.address}: send it out first`,
          });
      }
    }
    return blockers;
  }

  return {
    /**
     * Closes the account when the service holds and moves nothing for the user: no won balance, no charge, payout or
     * transfer under way, nothing on the Solana wallet it keeps. In one transaction: the user is marked closed (every token
     * stops working), every live credential is revoked (account-closed) and account.closed is appended. A closed
     * account answers its closure again, so a retry changes nothing.
     */
    async closeAccount({ userId }: AccountClosureInput): Promise<AccountClosureOutcome> {
      const user = await orm.em.fork().findOneOrFail(UserEntity, { id: userId });
      if (user.status === 'closed')
        return { closed: true, closedAt: user.closedAt!.toISOString(), revokedCredentials: [] };
      // Every blocker is told at once (the chain's and the database's), so the user fixes them in one go.
      const onChain = await custodialBalances(userId);
      try {
        return await orm.em.fork().transactional(async (tx) => {
          const closedAt = clock.date();
          // The row lock comes first: the checks below see what committed before it.
          if (
            (await tx.nativeUpdate(
              UserEntity,
              { id: userId, status: { $ne: 'closed' } },
              { status: 'closed', closedAt },
            )) !== 1
          ) {
            throw ApplicationFailure.retryable('the account changed while it was being closed');
          }
          const blockers: ClosureBlocker[] = [...onChain];
          for (const account of await tx.find(LedgerAccountEntity, {
            userId,
            kind: 'user_balance',
            balance: { $ne: 0n },
          })) {
            blockers.push({
              reason: 'won-balance',
              detail: `${account.balance} ${account.currency} held for the user: name a verified bank account (bank_account_id) to pay it back to`,
            });
          }
          blockers.push(...(await moneyInMotion(tx, userId)));
          if (blockers.length) throw new ClosureRefused(blockers);
          // What the person connected of their exchange accounts (balances read, pending OAuth states with their
          // sealed PKCE verifiers) goes with the account: none of it is a record the law asks to keep.
          await tx.nativeDelete(CexAccountEntity, { userId });
          await tx.nativeDelete(CexAuthorizationEntity, { userId });
          const revoked = await credentials.revoke(tx, { userId }, 'account-closed');
          await appendEvent(tx, { type: 'account.closed', resourceId: userId, userId, data: { userId } });
          return {
            closed: true as const,
            closedAt: closedAt.toISOString(),
            revokedCredentials: revoked.map((c) => c.vcId),
          };
        });
      } catch (error) {
        if (error instanceof ClosureRefused) return { closed: false, blockers: error.blockers };
        throw error;
      }
    },

    /** An operator's revocation; a credential revoked already answers its revocation unchanged. */
    /** The operator's name stays in the workflow's input (the Temporal history), not in what the user and apps read. */
    async revokeCredential({ vcId, reason }: CredentialRevocationInput): Promise<CredentialRevocationOutcome> {
      await orm.em.fork().transactional((tx) => credentials.revoke(tx, { vcId }, `operator: ${reason}`));
      const credential = await orm.em.fork().findOneOrFail(VerifiableCredentialEntity, { vcId });
      return { vcId, revokedAt: credential.revokedAt!.toISOString(), reason: credential.revocationReason! };
    },
  };
};

export type AccountActivities = ReturnType<typeof createAccountActivities>;
