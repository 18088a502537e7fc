import { getAddress } from 'ethers';
import { LockMode } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity, TransferEntity, type Transfer } from '../../db/entities';
import type { EvmNetwork } from '../../platform/networks';
import { formatMoney } from '../../platform/money';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import { problems } from '../http/problems';
import { evmAddress } from '../common/addresses';
import type { Holdings } from '../common/holdings';
import type { CustodyKeys } from '../common/custody';
import { transferKeyGrantOf } from '../../integrations/evm/smart-account';
import { IN_FLIGHT, amountOf, unknownToken, type PolicyCheck, type TransferIntent } from './intent';
import type { TransferFields } from './schemas';

/**
 * Validates an EVM transfer; `record` checks the account, that it authorizes the user's transfer key (a read: the
 * key's address, never the key), and the balance, and records the intent. The worker signs it.
 */
export function evmTransferIntent(deps: { orm: Orm; providers: ChainProviders; holdings: Holdings; custody: CustodyKeys }, network: EvmNetwork, body: TransferFields, userId: string): TransferIntent {
  const { orm, providers } = deps;
  const to = evmAddress(body.to_address);
  const native = network.nativeSymbol ?? 'ETH';
  const token = body.token === native ? undefined : network.tokens?.[body.token];
  if (body.token !== native && !token) throw unknownToken(body.token, network.networkId, [native, ...Object.keys(network.tokens ?? {})]);
  const decimals = token?.decimals ?? 18;
  const amount = amountOf(body.amount, decimals, body.token);
  const provider = providers.for(network);

  const record = async (transferId: string, policy: PolicyCheck): Promise<Transfer> => {
    const em = orm.em.fork();
    const account = await em.findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    if (!account) throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first`);
    if (getAddress(to) === getAddress(account.address)) throw problems.unprocessable('invalid-address', 'That is your own account');
    const grant = await transferKeyGrantOf(provider, account.address, []);
    if (!grant.signer) {
      throw problems.conflict('transfers-not-enabled', `This account authorizes no transfer key on ${network.networkId}: renew it (POST /v1/wallet/networks/${network.networkId}/transfer-key/prepare)`);
    }
    if (!(await deps.custody.transferKeyAddresses(userId)).includes(grant.signer)) {
      throw problems.conflict('transfers-not-enabled', 'This account does not authorize a transfer key the service holds for you');
    }
    // The balance check and the insert run under a lock on the account, counting transfers still in flight,
    // so concurrent transfers can never spend the same funds twice.
    return orm.em.fork().transactional(async (tx) => {
      await policy.guard(tx);
      await tx.findOneOrFail(SmartAccountEntity, { userId, networkId: network.networkId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const onChain = await deps.holdings.balanceAt(network.networkId, account.address, body.token);
      const inFlight = (await tx.find(TransferEntity, { userId, networkId: network.networkId, token: body.token, status: { $in: IN_FLIGHT } }))
        .reduce((sum, t) => sum + BigInt(t.amount), 0n);
      if (inFlight + amount > onChain) {
        throw problems.unprocessable('insufficient-balance', `Available ${formatMoney(onChain - inFlight > 0n ? onChain - inFlight : 0n, decimals, body.token)}; asked ${formatMoney(amount, decimals, body.token)}`);
      }
      return tx.create(TransferEntity, {
        transferId, userId, networkId: network.networkId, token: body.token, decimals, fromAddress: account.address, toAddress: to,
        amount: amount.toString(), valueKrw: policy.valueKrw, status: 'processing',
      });
    });
  };
  return { amount, decimals, record };
}
