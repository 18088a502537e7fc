import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { buildCallOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { didOf, publicKeyBytes, setAttributeCallData, type DidKeyType } from '../../integrations/evm/did-registry';
import { didKeyWorkflow } from '../../workflows/did-key';
import { didKeyWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
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

export interface DidKeyServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  taskQueue: string;
  didNetworkId: string;
  keyValiditySeconds: number;
  prepareTtlSeconds: number;
  passkeys: Passkeys;
  gas: GasSponsorships;
}

/**
 * assertionMethod keys of the user's did:ethr (their smart account on DID_NETWORK_ID, its own controller): prepare a
 * user operation calling the registry's setAttribute, execute it once signed (workflow did-key-<opId>).
 */
export class DidKeyService {
  constructor(private readonly deps: DidKeyServiceDeps) {}

  async prepare(userId: string, input: { keyType: DidKeyType; publicKey: string }) {
    const { orm, networks, didNetworkId } = this.deps;
    const network = networks.get(didNetworkId);
    if (!network) throw problems.unavailable(`The DID network ${didNetworkId} is not configured`);
    const em = orm.em.fork();
    const account = await em.findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    if (!account)
      throw problems.conflict(
        'account-not-deployed',
        `Deploy your account on ${network.networkId} first; your DID lives there`,
      );
    const keyBytes = publicKeyBytes(input.keyType, input.publicKey);
    const opId = `didop_${randomUUID()}`;
    const expiresAt = new Date(clock.now() + this.deps.prepareTtlSeconds * 1000);
    const [operation] = await this.deps.gas.sponsor(
      userId,
      opId,
      [
        {
          networkId: network.networkId,
          operation: await buildCallOperation(
            this.deps.providers.for(network),
            this.deps.providers.bundler(network),
            network,
            account.address,
            network.didRegistry,
            setAttributeCallData(account.address, input.keyType, keyBytes, this.deps.keyValiditySeconds),
          ),
        },
      ],
      sponsoredUntil(expiresAt),
    );
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    const did = didOf(network, account.address);
    recordPreparedOperation(em, {
      operationId: opId,
      kind: 'did_key',
      userId,
      networkId: network.networkId,
      accountAddress: account.address,
      ownerAddress: account.ownerAddress,
      details: { did, keyType: input.keyType, publicKey: keyBytes },
      userOperation: operation!,
      userOpHash,
      expiresAt,
    });
    await em.flush();
    return {
      description: `Add ${input.keyType} as an assertionMethod key of ${did}`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: opId,
        owner: account.ownerAddress,
        network,
        domain: { did, accountAddress: account.address, paymaster: network.paymaster },
        userOpHash,
      }),
    };
  }

  async execute(userId: string, items: SignedSlot[]): Promise<string> {
    const { orm, temporal, taskQueue } = this.deps;
    const op = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind: 'did_key',
      what: 'DID key operation',
      // The account signs as its current owner (a rotation since prepare makes the old owner's signature useless).
      signer: async ({ networkId }) =>
        (await orm.em.fork().findOneOrFail(SmartAccountEntity, { userId, networkId })).ownerAddress,
      start: ({ operationId, networkId }) =>
        temporal.workflow.start(didKeyWorkflow, {
          workflowId: didKeyWorkflowId(operationId),
          taskQueue,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ opId: operationId, userId, networkId }],
        }),
    });
    return op.operationId;
  }

  async status(userId: string, opId: string) {
    const op = await findOperation(this.deps.orm, userId, 'did_key', opId);
    if (!op) throw problems.notFound(`DID key operation ${opId}`);
    return {
      opId: op.operationId,
      did: op.details.did,
      keyType: op.details.keyType,
      status: op.status,
      txHash: op.txHash ?? null,
      error: op.error ?? null,
      ...progressOf(op),
      updatedAt: op.updatedAt.toISOString(),
    };
  }
}
