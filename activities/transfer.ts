import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { TransferEntity, type Transfer } from '../db/entities';
import type { Bundlers } from '../integrations/evm/bundlers';
import type { SolanaChains } from '../integrations/solana';
import type { SolanaWallets, TransferKeys } from '../integrations/custody/key-vault';
import type { NetworkRegistry } from '../platform/networks';
import { TransferFailure } from '../platform/failures';
import { buildTransferOperation, deserializeOperation, serializeOperation, transferCallData, transferNonceKey, type ChainProviders } from '../integrations/evm/smart-account';
import { transferSignature, userOperationHash } from '../integrations/evm/user-operation';
import { submitOnce } from './submit-once';
import type { GasSponsor } from './gas-sponsorship';
import type { TransferOutcome } from '../workflows/messages';

export interface TransferActivityDeps {
  orm: Orm; bundlers: Bundlers; networks: NetworkRegistry; providers: ChainProviders; solanaChains: SolanaChains;
  transferKeys: TransferKeys; solanaWallets: SolanaWallets; gasSponsor: GasSponsor;
}

/** How long the paymaster honours a transfer's sponsorship: long enough for patient resubmission, not forever. */
const TRANSFER_SPONSORSHIP_SECONDS = 24 * 3600;

const refused = (message: string) => ApplicationFailure.create({ type: TransferFailure.TransferRefused, message, nonRetryable: true });

/**
 * The chain side of a transfer. The API recorded the intent (amount, recipient, reservation); here the worker opens
 * the user's key, signs once and stores what it signed before anything is sent, and every later attempt finds it
 * (see submitOnce, SolanaChain.sendUntilFinal).
 */
export const createTransferActivities = (deps: TransferActivityDeps) => {
  const { orm, bundlers, networks } = deps;

  /** EVM: a user operation of the account, with its own nonce key, signed by the transfer key. */
  const signEvm = async (transfer: Transfer): Promise<Partial<Transfer>> => {
    const network = networks.get(transfer.networkId);
    if (!network) throw refused(`${transfer.networkId} is not a configured EVM network`);
    const signer = await deps.transferKeys.signerFor(transfer.userId);
    if (!signer) throw refused('the user has no transfer key');
    const token = network.tokens?.[transfer.token];
    const callData = transferCallData(transfer.toAddress, BigInt(transfer.amount), token);
    const built = await buildTransferOperation(deps.providers.for(network), network, transfer.fromAddress, callData, transferNonceKey(transfer.transferId));
    // Gas is sponsored (within the user's budget) before the transfer key signs, as the signature covers paymasterAndData.
    const [paymasterAndData] = await deps.gasSponsor.sponsor(transfer.userId, [{ sponsorshipId: `transfer:${transfer.transferId}`, networkId: network.networkId, operation: built }],
      new Date(Date.now() + TRANSFER_SPONSORSHIP_SECONDS * 1000));
    const operation = { ...built, paymasterAndData: paymasterAndData! };
    const userOpHash = userOperationHash(operation, network.chainId, network.entryPoint);
    return { userOperation: serializeOperation({ ...operation, signature: transferSignature(signer.signingKey.sign(userOpHash).serialized) }), userOpHash };
  };

  /** SOLANA: a transaction signed by the user's wallet key, simulated before it is kept. */
  const signSolana = async (transfer: Transfer): Promise<Partial<Transfer>> => {
    const network = networks.solana(transfer.networkId);
    if (!network) throw refused(`${transfer.networkId} is not a configured Solana network`);
    const wallet = await deps.solanaWallets.keyOf(transfer.userId);
    if (!wallet) throw refused('the user has no Solana wallet');
    const chain = deps.solanaChains.for(network);
    const signed = await chain.signTransfer({
      seed: wallet.seed, to: transfer.toAddress, symbol: chain.token(transfer.token) ? transfer.token : undefined, amount: BigInt(transfer.amount), memo: transfer.transferId,
    });
    const failure = await chain.simulate(signed.wire);
    if (failure) throw refused(`The transaction would fail on chain: ${failure}`);
    return { txHash: signed.signature, solanaTransaction: { wire: signed.wire, lastValidBlockHeight: signed.lastValidBlockHeight, lamportsCost: signed.lamportsCost } };
  };

  return {
    /** Signs the recorded transfer once; a retry (or a second worker) finds the signed form and leaves it. */
    async signTransfer({ transferId }: { transferId: string }): Promise<void> {
      const em = orm.em.fork();
      const transfer = await em.findOneOrFail(TransferEntity, { transferId });
      if (transfer.userOperation || transfer.solanaTransaction?.wire) return;
      const signed = networks.solana(transfer.networkId) ? await signSolana(transfer) : await signEvm(transfer);
      await em.nativeUpdate(TransferEntity, { transferId, userOperation: null, txHash: null }, signed);
    },

    async submitTransfer({ transferId }: { transferId: string }): Promise<{ success: boolean; txHash: string | null; fee: string | null; error?: string }> {
      const em = orm.em.fork();
      const transfer = await em.findOneOrFail(TransferEntity, { transferId });
      if (transfer.solanaTransaction?.wire) {
        const network = networks.solana(transfer.networkId);
        if (!network) throw new Error(`${transfer.networkId} is not a configured Solana network`);
        // The signature was recorded with the signed bytes before anything was sent; resending them is safe.
        const outcome = await deps.solanaChains.for(network).sendUntilFinal(
          { wire: transfer.solanaTransaction.wire, lastValidBlockHeight: transfer.solanaTransaction.lastValidBlockHeight!, signature: transfer.txHash! },
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
        settle: (outcome) => deps.gasSponsor.settle(outcome),
      });
      const hash = txHash ?? transfer.txHash;
      if (!hash) return { success: true, txHash: null, fee: null };
      const outcome = await bundler.waitForOutcome(hash);
      return { success: outcome.success, txHash: hash, fee: outcome.actualGasCost.toString(), ...(outcome.revertReason ? { error: `the account refused it: ${outcome.revertReason}` } : {}) };
    },

    /** Whether anything of this transfer may be on its way: a transaction hash is recorded before any broadcast. */
    async transferMaybeSent({ transferId }: { transferId: string }): Promise<boolean> {
      return Boolean((await orm.em.fork().findOneOrFail(TransferEntity, { transferId })).txHash);
    },

    async finishTransfer(input: { transferId: string } & TransferOutcome): Promise<void> {
      await orm.em.fork().nativeUpdate(TransferEntity, { transferId: input.transferId, status: 'processing' }, {
        status: input.status, txHash: input.txHash, fee: input.fee, error: input.error ?? null,
      });
    },
  };
};

export type TransferActivities = ReturnType<typeof createTransferActivities>;
