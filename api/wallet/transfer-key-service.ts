import { randomUUID } from 'node:crypto';
import { ZeroAddress } from 'ethers';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity } from '../../db/entities';
import { coinOf, type EvmNetwork, type NetworkRegistry } from '../../platform/networks';
import { formatMoney, parseAmount } from '../../platform/money';
import {
  buildCallOperation,
  configureTransferSignerCallData,
  transferKeyGrantOf,
  type ChainProviders,
} from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { transferKeyWorkflow } from '../../workflows/transfer-key';
import { transferKeyWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import type { CustodyKeys } from '../common/custody';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import {
  executeSingleOperation,
  findOperation,
  preparedSlots,
  recordPreparedOperation,
  type SignedSlot,
  progressOf,
} from '../common/signed-operation';
import type { Passkeys } from '../passkeys/service';
import { clock } from '../../platform/clock';
import { koreanDay, koreanDayNumber } from '../../platform/korean-day';

export type TransferKeyAction = 'renew' | 'rotate' | 'revoke' | 'set-caps';

export interface TransferKeyServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  taskQueue: string;
  prepareTtlSeconds: number;
  passkeys: Passkeys;
  custody: CustodyKeys;
  gas: GasSponsorships;
  /** The longest grant an owner may give the key (TRANSFER_SIGNER_VALIDITY_SECONDS, also the default). */
  maxValiditySeconds: number;
}

/**
 * The owner's control over the service-held transfer key on one account, on chain: read what it may do today, and
 * prepare an owner-signed operation that renews it (a new expiry), rotates it (a new service key; the old one is
 * retired), revokes it (address(0): no transfers by the service at all) or changes its daily caps. Executed like every
 * signed operation (workflow transfer-key-<opId>), gas sponsored within the budget.
 */
export class TransferKeyService {
  constructor(private readonly deps: TransferKeyServiceDeps) {}

  async view(userId: string, networkId: string) {
    const { network, account } = await this.accountOf(userId, networkId);
    const assets = this.assetsOf(network);
    const grant = await transferKeyGrantOf(
      this.deps.providers.for(network),
      account,
      assets.map((a) => a.token),
    );
    const keys = await this.deps.custody.transferKeyAddresses(userId);
    const today = koreanDayNumber(clock.now()); // the day the account counts its caps in
    return {
      networkId: network.networkId,
      accountAddress: account,
      signer: grant.signer,
      signerStatus: !grant.signer
        ? ('none' as const)
        : grant.signer === keys[0]
          ? ('current' as const)
          : keys.includes(grant.signer)
            ? ('retired' as const)
            : ('unknown' as const),
      // 0: a key without an expiry (ERC-4337's validUntil; only an owner's own call sets it), as transfers read it.
      validUntil: grant.signer && grant.validUntil !== 0 ? new Date(grant.validUntil * 1000).toISOString() : null,
      expired: grant.signer ? grant.validUntil !== 0 && grant.validUntil * 1000 <= clock.now() : true,
      caps: assets.map((a) => {
        const allowance = grant.allowances.get(a.token)!;
        const spent = allowance.day === today ? allowance.spent : 0n;
        return {
          symbol: a.symbol,
          dailyCap: formatMoney(allowance.dailyCap, a.decimals, a.symbol),
          spentToday: formatMoney(spent, a.decimals, a.symbol),
          remainingToday: formatMoney(
            allowance.dailyCap > spent ? allowance.dailyCap - spent : 0n,
            a.decimals,
            a.symbol,
          ),
        };
      }),
      capsResetAt: koreanDay(clock.date()).to.toISOString(),
    };
  }

  async prepare(
    userId: string,
    networkId: string,
    input: { action: TransferKeyAction; validForSeconds?: number; caps?: Record<string, string> },
  ) {
    const { network, account, owner } = await this.accountOf(userId, networkId);
    const provider = this.deps.providers.for(network);
    const grant = await transferKeyGrantOf(provider, account, []);
    if (input.validForSeconds !== undefined && !['renew', 'rotate'].includes(input.action)) {
      throw problems.unprocessable('invalid-transfer-key-change', 'validForSeconds applies to renew and rotate only');
    }
    if (input.validForSeconds !== undefined && input.validForSeconds > this.deps.maxValiditySeconds) {
      throw problems.unprocessable(
        'invalid-transfer-key-change',
        `validForSeconds is at most ${this.deps.maxValiditySeconds}`,
      );
    }
    const caps = this.capsOf(network, input.caps);
    const validUntil = Math.floor(clock.now() / 1000) + (input.validForSeconds ?? this.deps.maxValiditySeconds);
    let change: { signer: string; validUntil: number; text: string };
    switch (input.action) {
      case 'renew': {
        const current = await this.deps.custody.transferKeyAddress(userId);
        change = {
          signer: current,
          validUntil,
          text: `Authorize the service key ${current} for capped transfers until ${new Date(validUntil * 1000).toISOString()}`,
        };
        break;
      }
      case 'rotate': {
        // From the key the account names (a retired one, or none, moves it to the current key without a new one).
        const replacing = grant.signer ?? (await this.deps.custody.transferKeyAddress(userId));
        const next = await this.deps.custody.rotateTransferKey(userId, replacing);
        change = {
          signer: next,
          validUntil,
          text: `Replace the service key ${grant.signer ?? '(none)'} with a new one, ${next}, until ${new Date(validUntil * 1000).toISOString()}`,
        };
        break;
      }
      case 'revoke':
        if (caps.length) throw problems.unprocessable('invalid-transfer-key-change', 'revoke takes no caps');
        change = {
          signer: ZeroAddress,
          validUntil: 0,
          text: 'Remove the service key: the service can make no transfer from this account until you renew it',
        };
        break;
      case 'set-caps':
        if (!grant.signer)
          throw problems.conflict('transfers-not-enabled', 'This account authorizes no transfer key; renew it first');
        if (!caps.length)
          throw problems.unprocessable('invalid-transfer-key-change', 'set-caps needs caps, e.g. {"ETH":"1"}');
        change = {
          signer: grant.signer,
          validUntil: grant.validUntil,
          text: 'Change the daily caps of the service key',
        };
        break;
    }
    const opId = `tkop_${randomUUID()}`;
    const expiresAt = new Date(clock.now() + this.deps.prepareTtlSeconds * 1000);
    const [operation] = await this.deps.gas.sponsor(
      userId,
      opId,
      [
        {
          networkId: network.networkId,
          operation: await buildCallOperation(
            provider,
            this.deps.providers.bundler(network),
            network,
            account,
            account,
            configureTransferSignerCallData(change.signer, change.validUntil, caps),
          ),
        },
      ],
      sponsoredUntil(expiresAt),
    );
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    const capsBySymbol = Object.fromEntries(caps.map((c) => [c.symbol, c.dailyCap.toString()]));
    const em = this.deps.orm.em.fork();
    recordPreparedOperation(em, {
      operationId: opId,
      kind: 'transfer_key',
      userId,
      networkId: network.networkId,
      accountAddress: account,
      ownerAddress: owner,
      details: { action: input.action, signer: change.signer, validUntil: change.validUntil, caps: capsBySymbol },
      userOperation: operation!,
      userOpHash,
      expiresAt,
    });
    await em.flush();
    const capsText = caps.length ? `; daily caps ${caps.map((c) => c.text).join(', ')}` : '';
    return {
      description: `${change.text}${capsText} (account ${account} on ${network.networkId}; gas paid by the service)`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: opId,
        owner,
        network,
        userOpHash,
        domain: {
          accountAddress: account,
          action: input.action,
          transferSigner: change.signer,
          transferSignerValidUntil: change.validUntil,
          transferSignerDailyCaps: capsBySymbol,
          paymaster: network.paymaster,
        },
      }),
    };
  }

  async execute(userId: string, networkId: string, items: SignedSlot[]): Promise<string> {
    const { network } = await this.accountOf(userId, networkId);
    const { orm, temporal, taskQueue } = this.deps;
    const op = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind: 'transfer_key',
      what: 'transfer key change',
      networkId: network.networkId,
      signer: async () =>
        (await orm.em.fork().findOneOrFail(SmartAccountEntity, { userId, networkId: network.networkId })).ownerAddress,
      start: ({ operationId }) =>
        temporal.workflow.start(transferKeyWorkflow, {
          workflowId: transferKeyWorkflowId(operationId),
          taskQueue,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ opId: operationId, userId, networkId: network.networkId }],
        }),
    });
    return op.operationId;
  }

  async status(userId: string, opId: string) {
    const op = await findOperation(this.deps.orm, userId, 'transfer_key', opId);
    if (!op) throw problems.notFound(`Transfer key operation ${opId}`);
    return {
      opId: op.operationId,
      networkId: op.networkId,
      action: op.details.action!,
      status: op.status,
      signer: op.details.signer === ZeroAddress ? null : op.details.signer!,
      txHash: op.txHash ?? null,
      error: op.error ?? null,
      ...progressOf(op),
      updatedAt: op.updatedAt.toISOString(),
    };
  }

  private async accountOf(userId: string, networkId: string) {
    const network = this.deps.networks.get(networkId);
    if (!network && this.deps.networks.solana(networkId)) {
      throw problems.conflict(
        'no-smart-accounts',
        `${networkId} has no smart accounts here: its wallet is custodial, with no on-chain transfer key`,
      );
    }
    if (!network) throw problems.unknownNetwork(networkId, this.deps.networks.ids());
    const account = await this.deps.orm.em
      .fork()
      .findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    if (!account) throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first`);
    return { network, account: account.address, owner: account.ownerAddress };
  }

  private assetsOf(network: EvmNetwork) {
    const coin = coinOf(network);
    return [
      { symbol: coin.symbol, token: ZeroAddress, decimals: coin.decimals },
      ...Object.entries(network.tokens ?? {}).map(([symbol, t]) => ({
        symbol,
        token: t.address,
        decimals: t.decimals,
      })),
    ];
  }

  /** Caps in whole tokens per symbol → token addresses and base units; an unknown symbol is refused. */
  private capsOf(network: EvmNetwork, caps: Record<string, string> | undefined) {
    const assets = this.assetsOf(network);
    return Object.entries(caps ?? {}).map(([symbol, amount]) => {
      const asset = assets.find((a) => a.symbol === symbol);
      if (!asset)
        throw problems.unprocessable(
          'unknown-token',
          `${symbol} is not a token of ${network.networkId}; tokens: ${assets.map((a) => a.symbol).join(', ')}`,
        );
      const dailyCap = /^0+(\.0+)?$/.test(amount) ? 0n : parseAmount(amount, asset.decimals, symbol);
      if (dailyCap >= 2n ** 96n) throw problems.unprocessable('invalid-amount', `The cap of ${symbol} is too large`);
      return { symbol, token: asset.token, dailyCap, text: `${amount} ${symbol}` };
    });
  }
}
