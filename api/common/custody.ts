import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { RetiredTransferKeyEntity, SolanaWalletEntity, TransferKeyEntity } from '../../db/entities';
import { HotStatement } from '../../db/sql';
import { custodyKeyWorkflow } from '../../workflows/custody';
import { custodyKeyWorkflowId, type CustodyKeyInput, type CustodyKeyOutcome } from '../../workflows/messages';

const HOLDS_TRANSFER_KEY = new HotStatement(
  'holds-transfer-key',
  'select 1 as held from transfer_keys where user_id = ? and address = ? ' +
    'union all select 1 from retired_transfer_keys where user_id = ? and address = ? limit 1',
);

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

  /** A new transfer key replacing `replacing` (made once by the worker; asking again answers the same new key). */
  async rotateTransferKey(userId: string, replacing: string): Promise<string> {
    return (await this.create({ userId, kind: 'evm-transfer-key-rotation', replacing })).address;
  }

  /** The addresses of every transfer key the service holds for the user: the current one first, then retired ones. */
  async transferKeyAddresses(userId: string): Promise<string[]> {
    const em = this.deps.orm.em.fork();
    const current = await em.findOne(TransferKeyEntity, { userId });
    const retired = await em.find(RetiredTransferKeyEntity, { userId }, { orderBy: { retiredAt: 'desc' } });
    return [...(current ? [current.address] : []), ...retired.map((r) => r.address)];
  }

  /**
   * Whether `address` is one of the user's transfer keys the service holds (the current one or a retired one): one
   * statement, where reading both lists took two (a transfer's record asks it: issue 52).
   */
  async holdsTransferKey(userId: string, address: string): Promise<boolean> {
    return (await HOLDS_TRANSFER_KEY.row(this.deps.orm.em, [userId, address, userId, address])) !== undefined;
  }

  async openSolanaWallet(userId: string, networkId: string): Promise<CustodyKeyOutcome> {
    const existing = await this.deps.orm.em.fork().findOne(SolanaWalletEntity, { userId });
    return existing
      ? { address: existing.address, created: false }
      : this.create({ userId, kind: 'solana-wallet', networkId });
  }

  private create(input: CustodyKeyInput): Promise<CustodyKeyOutcome> {
    // Concurrent requests join the running workflow; a later one runs it again and finds the key made.
    return this.deps.temporal.workflow.execute(custodyKeyWorkflow, {
      workflowId: custodyKeyWorkflowId(input),
      taskQueue: this.deps.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  }
}
