import { getAddress } from 'ethers';
import type { Orm } from '../../db/orm';
import type { Transfer } from '../../db/entities';
import { clock } from '../../platform/clock';
import type { EvmNetwork } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import { problems } from '../http/problems';
import type { Holdings } from '../common/holdings';
import type { CustodyKeys } from '../common/custody';
import { transferKeyGrantOf } from '../../integrations/evm/smart-account';
import { IN_FLIGHT, unknownToken, type RecordGuard, type TransferIntent, type TransferLedger } from './intent';
import { HotStatement } from '../../db/sql';
import { ACCOUNT_LOCK, FREE_NONCE_LANE, NONCE_LANES, freeLaneParams } from '../../db/nonce-lanes';

/** A transfer key that expires within this long is refused as expired: its operation could not be sent in time. */
const TRANSFER_KEY_MARGIN_MS = 60_000;

/** What the user's transfers in flight of a token on a network move, each (read under the account's lock). */
const IN_FLIGHT_AMOUNTS = new HotStatement<{ amount: string }>(
  'transfers-in-flight-amounts',
  `select amount from transfers where user_id = ? and network_id = ? and token = ? and status in (${IN_FLIGHT.map((s) => `'${s}'`).join(', ')})`,
);

/**
 * The transfer's intent, recorded (inside the transaction that checked its limits and balance, under the account's
 * lock), with the account's lowest free nonce lane when it goes straight to signing: the worker then signs at once,
 * without a statement of its own to claim one (db/nonce-lanes.ts).
 */
export const TRANSFER_RECORD = new HotStatement(
  'transfer-record',
  'insert into transfers (transfer_id, user_id, network_id, token, decimals, from_address, to_address, amount, status, ' +
    `value_krw, travel_rule, review, created_at, updated_at, nonce_lane) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${FREE_NONCE_LANE})`,
);

/**
 * The EVM side of transfers on one network: its tokens; `record` checks the account, that it authorizes the user's
 * transfer key (a read: the key's address, never the key), and the balance, and records the intent. The worker signs it.
 */
export function evmLedger(
  deps: { orm: Orm; providers: ChainProviders; holdings: Holdings; custody: CustodyKeys },
  network: EvmNetwork,
): TransferLedger {
  const { orm, providers } = deps;
  const native = network.nativeSymbol ?? 'ETH';
  const decimalsOf = (symbol: string): number => {
    if (symbol === native) return 18;
    const token = network.tokens?.[symbol];
    if (!token) throw unknownToken(symbol, network.networkId, [native, ...Object.keys(network.tokens ?? {})]);
    return token.decimals;
  };

  /**
   * The account that sends, deployed and authorizing a transfer key the service holds for the user: reads only (the
   * process's holder, the chain, the custody table), so `precheck` starts them when the intent is parsed, beside the
   * checks and the PIN, and `record` answers their refusal where it always did, after those.
   */
  const accountChecks = new WeakMap<TransferIntent, Promise<{ address: string }>>();
  const checkedAccount = (intent: TransferIntent): Promise<{ address: string }> => {
    let checked = accountChecks.get(intent);
    if (!checked) {
      checked = checkAccount(intent);
      accountChecks.set(intent, checked);
    }
    return checked;
  };
  const checkAccount = async (intent: TransferIntent): Promise<{ address: string }> => {
    const { userId, recipient: to } = intent;
    // The process's cached holder (told of every change of the user's accounts; an account only ever goes from
    // counterfactual to deployed), its row locked below before anything is recorded.
    const account = await deps.holdings.holderOf(userId, network.networkId);
    if (!account?.deployed)
      throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first`);
    if (getAddress(to) === getAddress(account.address))
      throw problems.unprocessable('invalid-address', 'That is your own account');
    const { signer, validUntil } = await transferKeyGrantOf(providers.for(network), account.address, []);
    const renew = `renew it (POST /v1/wallet/networks/${network.networkId}/transfer-key/prepare)`;
    if (!signer) {
      throw problems.conflict(
        'transfers-not-enabled',
        `This account authorizes no transfer key on ${network.networkId}: ${renew}`,
      );
    }
    if (!(await deps.custody.holdsTransferKey(userId, signer))) {
      throw problems.conflict(
        'transfers-not-enabled',
        'This account does not authorize a transfer key the service holds for you',
      );
    }
    // The EntryPoint refuses the key after its expiry (0: none), and bundlers an operation about to expire: refused
    // here, before anything is recorded, reserved or signed, rather than accepted and then failed at the hand-over.
    if (validUntil !== 0 && validUntil * 1000 <= clock.now() + TRANSFER_KEY_MARGIN_MS) {
      throw problems.conflict(
        'transfers-not-enabled',
        `This account's transfer key on ${network.networkId} ${validUntil * 1000 <= clock.now() ? 'expired' : 'expires'} at ${new Date(validUntil * 1000).toISOString()}: ${renew}`,
      );
    }
    return account;
  };

  const record = async (
    intent: TransferIntent,
    transferId: string,
    policy: RecordGuard,
    extra: Partial<Pick<Transfer, 'travelRule' | 'status' | 'review'>> = {},
  ): Promise<void> => {
    const { userId, recipient: to, amount, decimals, token } = intent;
    const account = await checkedAccount(intent);
    // The balance check and the insert run under a lock on the account, counting transfers still in flight,
    // so concurrent transfers can never spend the same funds twice.
    return orm.em.fork().transactional(async (tx) => {
      await policy.guard(tx);
      await ACCOUNT_LOCK.lock(tx, userId, network.networkId);
      // In flight first, then the chain: the worker records a landed transfer confirmed without this lock, and one
      // landing between the reads is then counted twice (a refusal to retry), never in neither (an overdraft).
      const inFlight = (await IN_FLIGHT_AMOUNTS.rows(tx, [userId, network.networkId, token])).reduce(
        (sum, t) => sum + BigInt(t.amount),
        0n,
      );
      const onChain = await deps.holdings.balanceAt(network.networkId, account.address, token);
      if (inFlight + amount > onChain) {
        throw problems.unprocessable(
          'insufficient-balance',
          `Available ${formatMoney(onChain - inFlight > 0n ? onChain - inFlight : 0n, decimals, token)}; asked ${formatMoney(amount, decimals, token)}`,
        );
      }
      const now = clock.date();
      await TRANSFER_RECORD.rows(tx, [
        transferId,
        userId,
        network.networkId,
        token,
        decimals,
        account.address,
        to,
        amount.toString(),
        extra.status ?? 'processing',
        intent.valueKrw,
        extra.travelRule ?? null,
        extra.review ?? null,
        now,
        now,
        // A transfer held for review or for the Travel Rule may wait for days: it takes its lane when it is signed.
        ...freeLaneParams(
          extra.status === 'held_for_review' || extra.travelRule ? 0 : NONCE_LANES,
          network.networkId,
          account.address,
        ),
      ]);
    });
  };
  const precheck = (intent: TransferIntent): void => {
    checkedAccount(intent).catch(() => undefined); // answered by record, if the request gets that far
  };
  return { decimalsOf, record, precheck };
}
