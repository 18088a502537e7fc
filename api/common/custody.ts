import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SolanaWalletEntity, TransferKeyEntity } from '../../db/entities';
import { custodyKeyWorkflow } from '../../workflows/custody';
import { custodyKeyWorkflowId, type CustodyKeyInput, type CustodyKeyOutcome } from '../../workflows/messages';

/**
 * Addresses of the keys the service holds for a user. The API reads them; when one does not exist yet it asks the
 * worker to create it (custody-key-<kind>-<userId>) and waits: only the worker can seal a key.
 */
export class CustodyKeys {
  constructor(private readonly deps: { orm: Orm; temporal: Client; taskQueue: string }) {}

  async transferKeyAddress(userId: string): Promise<string> {
    const existing = await this.deps.orm.em.fork().findOne(TransferKeyEntity, { userId });
    return existing?.address ?? (await this.create({ userId, kind: 'evm-transfer-key' })).address;
  }

  async openSolanaWallet(userId: string, networkId: string): Promise<CustodyKeyOutcome> {
    const existing = await this.deps.orm.em.fork().findOne(SolanaWalletEntity, { userId });
    return existing ? { address: existing.address, created: false } : this.create({ userId, kind: 'solana-wallet', networkId });
  }

  private create(input: CustodyKeyInput): Promise<CustodyKeyOutcome> {
    // Concurrent requests join the running workflow; a later one runs it again and finds the key made.
    return this.deps.temporal.workflow.execute(custodyKeyWorkflow, {
      workflowId: custodyKeyWorkflowId(input), taskQueue: this.deps.taskQueue, args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  }
}
