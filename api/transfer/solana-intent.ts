import { LockMode } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SolanaWalletEntity, TransferEntity, type Transfer } from '../../db/entities';
import type { SolanaNetwork } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import { LAMPORTS_PER_SIGNATURE, SOL_DECIMALS, type SolanaChain, type SolanaChains } from '../../integrations/solana';
import type { EntityManager } from '@mikro-orm/core';
import { problems } from '../http/problems';
import { solanaAddress } from '../common/addresses';
import { IN_FLIGHT, amountOf, unknownToken, type PolicyCheck, type TransferIntent } from './intent';
import type { TransferFields } from './schemas';

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
 * Validates a Solana transfer; `record` checks the recipient, rent and the balance (amount, fee and a new token
 * account's rent, counting transfers in flight) under the wallet lock and records the intent. The worker signs it.
 */
export function solanaTransferIntent(deps: { orm: Orm; solanaChains: SolanaChains }, network: SolanaNetwork, body: TransferFields, userId: string): TransferIntent {
  const to = solanaAddress(body.to_address);
  const chain = deps.solanaChains.for(network);
  const token = body.token === 'SOL' ? undefined : chain.token(body.token);
  if (body.token !== 'SOL' && !token) throw unknownToken(body.token, network.networkId, ['SOL', ...Object.keys(network.tokens ?? {})]);
  const decimals = token?.decimals ?? SOL_DECIMALS;
  const amount = amountOf(body.amount, decimals, body.token);

  const checkRecipient = async (wallet: string): Promise<bigint> => {
    if (to === wallet) throw problems.unprocessable('invalid-address', 'That is your own wallet');
    const recipient = await chain.recipientKind(to);
    if (recipient === 'program') throw problems.unprocessable('invalid-address', 'That address is a program, not a wallet');
    if (recipient === 'token-account') throw problems.unprocessable('invalid-address', 'That address is a token account; send to the wallet that owns it');
    const rentMinimum = await chain.rpc.getMinimumBalanceForRentExemption(0n).send();
    if (!token && recipient === 'unused' && amount < rentMinimum) throw problems.unprocessable('invalid-amount', `A new Solana address must receive at least ${sol(rentMinimum)}`);
    return rentMinimum;
  };

  const checkBalance = (lamportsLeft: bigint, cost: bigint, tokensAvailable: bigint, rentMinimum: bigint) => {
    if (token) {
      if (amount > tokensAvailable) throw problems.unprocessable('insufficient-balance', `Available ${formatMoney(tokensAvailable > 0n ? tokensAvailable : 0n, decimals, body.token)}; asked ${formatMoney(amount, decimals, body.token)}`);
      if (lamportsLeft < 0n) throw problems.unprocessable('insufficient-balance', `The network fee${cost > LAMPORTS_PER_SIGNATURE ? ' and the recipient\'s new token account' : ''} need ${sol(cost)}; available ${sol(lamportsLeft + cost)}`);
    } else if (lamportsLeft < 0n) {
      throw problems.unprocessable('insufficient-balance', `Available ${sol(lamportsLeft + amount)} after the ${sol(LAMPORTS_PER_SIGNATURE)} fee; asked ${sol(amount)}`);
    }
    if (lamportsLeft > 0n && lamportsLeft < rentMinimum) {
      throw problems.unprocessable('insufficient-balance', `A Solana wallet must keep at least ${sol(rentMinimum)} (rent exemption) or nothing; this would leave ${sol(lamportsLeft)}`);
    }
  };

  const record = async (transferId: string, policy: PolicyCheck): Promise<Transfer> => {
    const wallet = await deps.orm.em.fork().findOne(SolanaWalletEntity, { userId });
    if (!wallet) throw problems.conflict('wallet-not-opened', `Open your ${network.networkId} wallet first: POST /v1/wallet/networks/${network.networkId}/wallet`);
    const rentMinimum = await checkRecipient(wallet.address);
    const cost = await chain.costOf({ to, symbol: token ? body.token : undefined, amount });
    return deps.orm.em.fork().transactional(async (tx) => {
      await policy.guard(tx);
      await tx.findOneOrFail(SolanaWalletEntity, { userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const inFlight = await reserved(tx, chain, userId, network.networkId, body.token);
      const lamportsLeft = (await chain.balance(wallet.address)) - inFlight.lamports - cost;
      const tokensAvailable = token ? (await chain.tokenBalance(wallet.address, body.token)) - inFlight.tokens : 0n;
      checkBalance(lamportsLeft, cost, tokensAvailable, rentMinimum);
      return tx.create(TransferEntity, {
        transferId, userId, networkId: network.networkId, token: body.token, decimals, fromAddress: wallet.address, toAddress: to,
        amount: amount.toString(), valueKrw: policy.valueKrw, status: 'processing', solanaTransaction: { lamportsCost: cost.toString() },
      });
    });
  };
  return { amount, decimals, record };
}
