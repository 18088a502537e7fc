import { LockMode } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SolanaWalletEntity, TransferEntity, type Transfer } from '../../db/entities';
import type { SolanaNetwork } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import { LAMPORTS_PER_SIGNATURE, SOL_DECIMALS, type SolanaChain, type SolanaChains } from '../../integrations/solana';
import type { EntityManager } from '@mikro-orm/core';
import { problems } from '../http/problems';
import { IN_FLIGHT, unknownToken, type RecordGuard, type TransferIntent, type TransferLedger } from './intent';

const sol = (lamports: bigint) => formatMoney(lamports > 0n ? lamports : 0n, SOL_DECIMALS, 'SOL');

/**
 * SOL or an SPL token still reserved by this wallet's transfers in flight. Transfers recorded as processing whose
 * transaction already landed are in the balance already: only the others are reserved. Statuses are read before
 * balances, so a landing in between is counted twice (a refusal to retry), never not at all (an overdraft).
 */
async function reserved(tx: EntityManager, chain: SolanaChain, userId: string, networkId: string, symbol: string) {
  const recorded = await tx.find(TransferEntity, { userId, networkId, status: { $in: IN_FLIGHT } });
  const landed = await chain.landed(recorded.flatMap((t) => (t.txHash ? [t.txHash] : [])));
  const inFlight = recorded.filter((t) => !t.txHash || !landed.has(t.txHash));
  return {
    lamports: inFlight.reduce((sum, t) => sum + BigInt(t.solanaTransaction?.lamportsCost ?? '0'), 0n),
    tokens: inFlight.filter((t) => t.token === symbol).reduce((sum, t) => sum + BigInt(t.amount), 0n),
  };
}

/**
 * The Solana side of transfers: its tokens; `record` checks the recipient, rent and the balance (amount, fee and a new
 * token account's rent, counting transfers in flight) under the wallet lock and records the intent. The worker signs it.
 */
export function solanaLedger(deps: { orm: Orm; solanaChains: SolanaChains }, network: SolanaNetwork): TransferLedger {
  const chain = deps.solanaChains.for(network);
  const decimalsOf = (symbol: string): number => {
    if (symbol === 'SOL') return SOL_DECIMALS;
    const token = chain.token(symbol);
    if (!token) throw unknownToken(symbol, network.networkId, ['SOL', ...Object.keys(network.tokens ?? {})]);
    return token.decimals;
  };

  const checkRecipient = async (intent: TransferIntent, wallet: string): Promise<bigint> => {
    const { recipient: to, amount } = intent;
    const token = intent.token === 'SOL' ? undefined : chain.token(intent.token);
    if (to === wallet) throw problems.unprocessable('invalid-address', 'That is your own wallet');
    const recipient = await chain.recipientKind(to);
    if (recipient === 'program')
      throw problems.unprocessable('invalid-address', 'That address is a program, not a wallet');
    if (recipient === 'token-account')
      throw problems.unprocessable(
        'invalid-address',
        'That address is a token account; send to the wallet that owns it',
      );
    const rentMinimum = await (await chain.rpc()).getMinimumBalanceForRentExemption(0n).send();
    if (!token && recipient === 'unused' && amount < rentMinimum)
      throw problems.unprocessable('invalid-amount', `A new Solana address must receive at least ${sol(rentMinimum)}`);
    return rentMinimum;
  };

  const checkBalance = (
    intent: TransferIntent,
    lamportsLeft: bigint,
    cost: bigint,
    tokensAvailable: bigint,
    rentMinimum: bigint,
  ) => {
    const { amount, decimals, token: symbol } = intent;
    if (symbol !== 'SOL') {
      if (amount > tokensAvailable)
        throw problems.unprocessable(
          'insufficient-balance',
          `Available ${formatMoney(tokensAvailable > 0n ? tokensAvailable : 0n, decimals, symbol)}; asked ${formatMoney(amount, decimals, symbol)}`,
        );
      if (lamportsLeft < 0n)
        throw problems.unprocessable(
          'insufficient-balance',
          `The network fee${cost > LAMPORTS_PER_SIGNATURE ? " and the recipient's new token account" : ''} need ${sol(cost)}; available ${sol(lamportsLeft + cost)}`,
        );
    } else if (lamportsLeft < 0n) {
      throw problems.unprocessable(
        'insufficient-balance',
        `Available ${sol(lamportsLeft + amount)} after the ${sol(LAMPORTS_PER_SIGNATURE)} fee; asked ${sol(amount)}`,
      );
    }
    if (lamportsLeft > 0n && lamportsLeft < rentMinimum) {
      throw problems.unprocessable(
        'insufficient-balance',
        `A Solana wallet must keep at least ${sol(rentMinimum)} (rent exemption) or nothing; this would leave ${sol(lamportsLeft)}`,
      );
    }
  };

  const record = async (
    intent: TransferIntent,
    transferId: string,
    policy: RecordGuard,
    extra: Partial<Pick<Transfer, 'travelRule' | 'status' | 'review'>> = {},
  ): Promise<Transfer> => {
    const { userId, recipient: to, amount, decimals, token: symbol } = intent;
    const wallet = await deps.orm.em.fork().findOne(SolanaWalletEntity, { userId });
    if (!wallet)
      throw problems.conflict(
        'wallet-not-opened',
        `Open your ${network.networkId} wallet first: POST /v1/wallet/networks/${network.networkId}/wallet`,
      );
    const rentMinimum = await checkRecipient(intent, wallet.address);
    const token = symbol === 'SOL' ? undefined : chain.token(symbol);
    const cost = await chain.costOf({ to, symbol: token ? symbol : undefined, amount });
    return deps.orm.em.fork().transactional(async (tx) => {
      await policy.guard(tx);
      await tx.findOneOrFail(SolanaWalletEntity, { userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const inFlight = await reserved(tx, chain, userId, network.networkId, symbol);
      const lamportsLeft = (await chain.balance(wallet.address)) - inFlight.lamports - cost;
      const tokensAvailable = token ? (await chain.tokenBalance(wallet.address, symbol)) - inFlight.tokens : 0n;
      checkBalance(intent, lamportsLeft, cost, tokensAvailable, rentMinimum);
      return tx.create(TransferEntity, {
        transferId,
        userId,
        networkId: network.networkId,
        token: symbol,
        decimals,
        fromAddress: wallet.address,
        toAddress: to,
        amount: amount.toString(),
        valueKrw: intent.valueKrw,
        status: 'processing',
        ...extra,
        solanaTransaction: { lamportsCost: cost.toString() },
      });
    });
  };
  return { decimalsOf, record };
}
