import type { Orm } from '../db/orm';
import { TransferEntity } from '../db/entities';
import { Context } from '@temporalio/activity';
import type { Bundlers } from '../integrations/evm/bundlers';
import { SolanaChains } from '../integrations/solana';
import type { NetworkRegistry } from '../platform/networks';
import { deserializeOperation } from '../integrations/evm/smart-account';
import { submitOnce } from './submit-once';
import type { TransferOutcome } from '../workflows/messages';

export interface TransferActivityDeps { orm: Orm; bundlers: Bundlers; networks: NetworkRegistry; solanaChains?: SolanaChains }

/** The chain side of a transfer; every attempt finds what an earlier one sent (see submitOnce, SolanaChain.sendUntilFinal). */
export const createTransferActivities = ({ orm, bundlers, networks, solanaChains = new SolanaChains() }: TransferActivityDeps) => ({
  async submitTransfer({ transferId }: { transferId: string }): Promise<{ success: boolean; txHash: string | null; fee: string | null; error?: string }> {
    const em = orm.em.fork();
    const transfer = await em.findOneOrFail(TransferEntity, { transferId });
    if (transfer.solanaTransaction) {
      const network = networks.solana(transfer.networkId);
      if (!network) throw new Error(`${transfer.networkId} is not a configured Solana network`);
      // The signature was recorded with the signed bytes before anything was sent; resending them is safe.
      const outcome = await solanaChains.for(network).sendUntilFinal(
        { ...transfer.solanaTransaction, signature: transfer.txHash! },
        { onPoll: () => Context.current().heartbeat() },
      );
      if (!outcome.landed) return { success: false, txHash: null, fee: null, error: outcome.error };
      return { success: outcome.success, txHash: outcome.signature, fee: outcome.fee, ...(outcome.error ? { error: outcome.error } : {}) };
    }
    const bundler = bundlers.for(transfer.networkId);
    const operation = deserializeOperation(transfer.userOperation!);
    const { txHash } = await submitOnce({
      bundler, beneficiary: bundlers.beneficiary, operation, recordedTxHash: transfer.txHash,
      // Each transfer has its own nonce key, so its operation has executed exactly when that key's sequence moved on.
      alreadyDone: async () => (await bundler.nonceOf(operation.sender, operation.nonce >> 64n)) > operation.nonce,
      recordTxHash: async (hash) => { transfer.txHash = hash; await em.flush(); },
    });
    const hash = txHash ?? transfer.txHash;
    if (!hash) return { success: true, txHash: null, fee: null };
    const outcome = await bundler.waitForOutcome(hash);
    return { success: outcome.success, txHash: hash, fee: outcome.actualGasCost.toString() };
  },

  async finishTransfer(input: { transferId: string } & TransferOutcome): Promise<void> {
    await orm.em.fork().nativeUpdate(TransferEntity, { transferId: input.transferId, status: 'processing' }, {
      status: input.status, txHash: input.txHash, fee: input.fee, error: input.error ?? null,
    });
  },
});

export type TransferActivities = ReturnType<typeof createTransferActivities>;
