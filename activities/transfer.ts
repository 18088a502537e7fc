import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { heartbeat } from './heartbeat';
import type { Orm } from '../db/orm';
import { EventEntity, TransferEntity, type Transfer } from '../db/entities';
import type { Bundlers } from '../integrations/evm/bundlers';
import type { ConfirmationObserver } from '../integrations/evm/bundlers';
import { UserOperationRejected } from '../integrations/evm/bundler-client';
import type { SolanaChains } from '../integrations/solana';
import type { SolanaWallets, TransferKeys } from '../integrations/custody/key-vault';
import { confirmationsOf, type NetworkRegistry } from '../platform/networks';
import { TransferFailure } from '../platform/failures';
import {
  buildTransferOperation,
  currentFees,
  feesReplacing,
  namedTransferSigner,
  deserializeOperation,
  serializeOperation,
  transferCallData,
  transferNonceKey,
  type ChainProviders,
} from '../integrations/evm/smart-account';
import { transferSignature, userOperationHash, type UserOperation } from '../integrations/evm/user-operation';
import { submitOnce, type OperationStall, type SignedReplacement } from './submit-once';
import type { FinalityLooks, FinalityRound, WaitingTransfer } from './resident';
import type { GasSponsor } from './gas-sponsorship';
import { sentOutcome, type TransferOutcome } from '../workflows/messages';
import type { EntityManager } from '@mikro-orm/core';
import { appendEvent } from '../db/events';
import { changeTransfer, transferById } from '../db/transfer-changes';
import { claimNonceLane } from '../db/nonce-lanes';
import { HotStatement } from '../db/sql';
import { userIsActive } from './account';
import { clock } from '../platform/clock';

export interface TransferActivityDeps {
  orm: Orm;
  bundlers: Bundlers;
  networks: NetworkRegistry;
  providers: ChainProviders;
  solanaChains: SolanaChains;
  transferKeys: TransferKeys;
  solanaWallets: SolanaWallets;
  gasSponsor: GasSponsor;
  /** The worker's metrics: how long a Solana transfer took from its first send to finality (EVM: the bundler's). */
  confirmations?: ConfirmationObserver;
}

/** What a submission found on chain: the transaction, its fee, and the block (EVM) or slot (Solana) that included it. */
export interface SubmittedTransfer {
  success: boolean;
  txHash: string | null;
  fee: string | null;
  error?: string;
  block?: { number: string; hash: string | null };
}

const FINALITY_POLL_MS = 1_000;
/** How far back a reorged operation is looked for in other blocks. */
const REORG_LOOKBACK_BLOCKS = 128;

/** How long the paymaster honours a transfer's sponsorship: long enough for patient resubmission, not forever. */
const TRANSFER_SPONSORSHIP_SECONDS = 24 * 3600;
/**
 * An EVM transfer's signed operation recorded, once (a retry that finds one signed records nothing): a row answered
 * when this update is the one that stored it.
 */
const SIGNED = new HotStatement<{ transfer_id: string }>(
  'transfer-signed-returning',
  'update transfers set user_operation = ?, user_op_hash = ? where transfer_id = ? and user_operation is null and tx_hash is null ' +
    'returning transfer_id',
);

const refused = (message: string) =>
  ApplicationFailure.create({ type: TransferFailure.TransferRefused, message, nonRetryable: true });
const notActive = () => refused('the account is no longer active');

/** An attempt Temporal gave up on (past its timeout, or its worker told to stop) hands nothing over: a later one has it. */
const stillWanted = (): void => {
  if (Context.current().cancellationSignal.aborted) throw new CancelledFailure('the attempt was cancelled');
};

/**
 * The hand-over's record, made before anything reaches the chain (processing -> submitted; already submitted by an
 * earlier attempt: sent again, which its hash or signature makes safe). A transfer failed or held meanwhile gets
 * nothing sent: an attempt that ran on past its heartbeat's timeout while a later one was refused (its last
 * screening, for one) and the workflow recorded it failed, or an operator's rejection.
 */
export async function handOver(em: EntityManager, transferId: string, userOpHash?: string | null): Promise<void> {
  const changed = await changeTransfer(em, {
    transferId,
    from: ['processing'],
    set: { status: 'submitted' },
    event: { type: 'transfer.submitted', ...(userOpHash !== undefined ? { userOpHash } : {}) },
  });
  if (changed) return;
  const { status } = await transferById(em, transferId);
  if (status === 'failed' || status === 'held_for_review')
    throw refused(`the transfer is ${status}: nothing is sent for it`);
}

/** What finishTransfer records: the outcome, the block that holds it, and for a failure whether it must be unsent. */
export type FinishInput = { transferId: string; block?: SubmittedTransfer['block'] } & TransferOutcome & {
    /**
     * A failure the chain did not prove (an error, attempts run out; the workflow read the transfer unsent): recorded
     * only while nothing was handed over. An attempt still running past its timeout, or a worker's that lost its
     * workflow task, may have handed it to the bundler since: then nothing is recorded and the answer is false.
     */
    unsent?: boolean;
  };

/**
 * A transfer's outcome recorded once, with its event: a later call (a retry, a second worker) changes nothing. False
 * only for an `unsent` failure of a transfer handed over meanwhile (submitted, or further): it may be on chain.
 */
export async function finishTransferRecord(em: EntityManager, input: FinishInput): Promise<boolean> {
  const changed = await changeTransfer(em, {
    transferId: input.transferId,
    from: input.unsent ? ['held_for_review', 'processing'] : ['held_for_review', 'processing', 'submitted'],
    set: {
      status: input.status,
      txHash: input.txHash,
      fee: input.fee,
      error: input.error ?? null,
      blockNumber: input.block ? Number(input.block.number) : null,
      blockHash: input.block?.hash ?? null,
      // A failed transfer's nonce lane is free again (what it signed will not be sent); a confirmed one keeps it
      // until final, as a reorg may have it sent again.
      ...(input.status === 'failed' ? { nonceLane: null } : {}),
    },
    event: { type: `transfer.${input.status}`, ...(input.error !== undefined ? { error: input.error } : {}) },
  });
  if (changed || !input.unsent) return true;
  // Recorded failed already (this call retried), or handed over meanwhile.
  return (await transferById(em, input.transferId)).status === 'failed';
}

/**
 * The finality watch's looks at confirmed transfers (activities/resident.ts watchFinality runs the watch; these are
 * the ORM's part of it, loaded with the rest of the activities once a transfer is waiting).
 */
export const createFinalityLooks = (
  deps: Pick<TransferActivityDeps, 'orm' | 'bundlers' | 'networks' | 'providers' | 'solanaChains'>,
): FinalityLooks => {
  const { orm, bundlers, networks } = deps;

  /**
   * One look at a confirmed transfer: finalized, still pending, or removed by a reorg; `moved` when it is no longer
   * confirmed when looked at (something else put it back in flight or recorded its end).
   */
  const finalityOnce = async (transferId: string): Promise<'finalized' | 'pending' | 'reorged' | 'moved'> => {
    const em = orm.em.fork();
    const transfer = await em.findOneOrFail(TransferEntity, { transferId });
    if (transfer.status === 'finalized') return 'finalized';
    if (transfer.status !== 'confirmed') return 'moved';
    const finalize = async (): Promise<'finalized'> => {
      await changeTransfer(em, {
        transferId,
        from: ['confirmed'],
        set: { status: 'finalized', nonceLane: null },
        event: { type: 'transfer.finalized' },
      });
      return 'finalized';
    };
    const solana = networks.solana(transfer.networkId);
    if (solana) {
      const finality = await deps.solanaChains.for(solana).finalityOf(transfer.txHash!);
      if (finality === 'finalized') return finalize();
      return finality === 'dropped' ? 'reorged' : 'pending';
    }
    const network = networks.get(transfer.networkId)!;
    const entryPoint = bundlers.entryPoint(transfer.networkId);
    const receipt = await entryPoint.receiptOf(transfer.txHash!);
    const found =
      receipt && entryPoint.outcomeIn(receipt, transfer.userOpHash!)
        ? { receipt }
        : await entryPoint.findOperation(
            transfer.userOpHash!,
            Math.max(0, Number(transfer.blockNumber ?? 0) - REORG_LOOKBACK_BLOCKS),
          );
    if (!found) return 'reorged';
    const { blockNumber, blockHash, hash } = found.receipt;
    if (blockHash !== transfer.blockHash || hash !== transfer.txHash) {
      // Included again in another block (or by another transaction): count its confirmations from there.
      await em.nativeUpdate(
        TransferEntity,
        { transferId, status: 'confirmed' },
        { blockNumber, blockHash, txHash: hash },
      );
    }
    const provider = deps.providers.for(network);
    const head = Number(BigInt((await provider.send('eth_blockNumber', [])) as string));
    if (head - blockNumber + 1 < confirmationsOf(network)) return 'pending';
    // Deep enough: final only if that block is still the canonical one at its height.
    const canonical = (await provider.send('eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])) as {
      hash: string;
    } | null;
    return canonical?.hash === blockHash ? finalize() : 'pending';
  };

  /**
   * The finality watch's quick look at a transfer deep enough on an EVM chain: final when the chain still has the
   * recorded block at its height and that block holds the operation's UserOperationEvent in the recorded transaction
   * (what finalityOnce reads from the transaction's receipt). `round` keeps one read of each block's operations and one
   * of each height's hash for all the transfers looked at in one round (a bundle's transfers share its block). Null
   * for anything else (another block at that height, the operation not found there, no block recorded): finalityOnce
   * then looks at it alone.
   */
  const finalIfStillThere = async (
    transfer: WaitingTransfer,
    round: FinalityRound,
  ): Promise<'finalized' | 'moved' | null> => {
    const { blockNumber, blockHash, txHash, userOpHash } = transfer;
    if (blockNumber === null || blockNumber === undefined || !blockHash || !txHash || !userOpHash) return null;
    const entryPoint = bundlers.entryPoint(transfer.networkId);
    // A read the node refuses (a provider that limits eth_getLogs, a node behind on that block) is no answer: the
    // full look, which reads otherwise, then decides (and fails the round only if it cannot read either).
    const read = <K, V>(cache: Map<K, Promise<V | null>>, key: K, load: () => Promise<V>): Promise<V | null> => {
      let answer = cache.get(key);
      if (!answer) cache.set(key, (answer = load().catch(() => null)));
      return answer;
    };
    // The height's hash first: a block a reorg replaced is not asked for (a node may not know it any more).
    if ((await read(round.hashes, blockNumber, () => entryPoint.hashAt(blockNumber))) !== blockHash) return null;
    const operations = await read(round.operations, blockHash, () => entryPoint.operationsInBlock(blockHash));
    if (operations?.get(userOpHash.toLowerCase()) !== txHash.toLowerCase()) return null;
    const changed = await changeTransfer(orm.em.fork(), {
      transferId: transfer.transferId,
      from: ['confirmed'],
      set: { status: 'finalized', nonceLane: null },
      event: { type: 'transfer.finalized' },
    });
    return changed ? 'finalized' : 'moved';
  };

  /** The chain's head (EVM): its hash and number, or null when the node has none to tell. */
  const head = async (networkId: string) =>
    (await deps.providers.for(networks.get(networkId)!).send('eth_getBlockByNumber', ['latest', false])) as {
      hash: string;
      number: string;
    } | null;

  return { finalityOnce, finalIfStillThere, head };
};

/**
 * The chain side of a transfer. The API recorded the intent (amount, recipient, reservation); here the worker opens
 * the user's key, signs once and stores what it signed before anything is sent, and every later attempt finds it
 * (see submitOnce, SolanaChain.sendUntilFinal).
 */
export const createTransferActivities = (
  deps: TransferActivityDeps,
  looks: FinalityLooks = createFinalityLooks(deps),
) => {
  const { orm, bundlers, networks } = deps;

  /** The key this account authorizes now: the current one, or one a rotation retired that the account still names. */
  const transferSignerOf = async (transfer: Transfer) => {
    const network = networks.get(transfer.networkId)!;
    const authorized = await namedTransferSigner(deps.providers.for(network), transfer.fromAddress);
    const signer = authorized ? await deps.transferKeys.signerFor(transfer.userId, authorized) : undefined;
    if (!signer) throw refused('the account authorizes none of the transfer keys the service holds for this user');
    return signer;
  };

  /**
   * A stalled transfer signed again: the same operation on the same nonce at fees the chain accepts now (above the
   * stalled one's, as bundlers require to replace it), sponsored anew (the old reservation stays until one of the two
   * lands), recorded with the stalled one kept among replacedOperations before it is sent (a retry finds both).
   */
  const repriceEvm = async (transferId: string, stall: OperationStall): Promise<SignedReplacement> => {
    const em = orm.em.fork();
    const transfer = await em.findOneOrFail(TransferEntity, { transferId });
    const network = networks.get(transfer.networkId)!;
    const stalled = deserializeOperation(transfer.userOperation!);
    const replaced = transfer.replacedOperations ?? [];
    const signer = await transferSignerOf(transfer);
    const built = {
      ...stalled,
      ...feesReplacing(await currentFees(deps.providers.for(network)), stalled),
      paymasterAndData: '0x',
      signature: '0x',
    };
    const [paymasterAndData] = await deps.gasSponsor.sponsor(
      transfer.userId,
      [
        {
          sponsorshipId: `transfer:${transferId}:repriced:${replaced.length + 1}`,
          networkId: network.networkId,
          operation: built,
        },
      ],
      new Date(clock.now() + TRANSFER_SPONSORSHIP_SECONDS * 1000),
    );
    const priced = { ...built, paymasterAndData: paymasterAndData! };
    const userOpHash = userOperationHash(priced, network.chainId, network.entryPoint);
    const operation = { ...priced, signature: transferSignature(signer.sign(userOpHash).serialized) };
    await em.transactional(async (tx) => {
      const moved = await tx.nativeUpdate(
        TransferEntity,
        { transferId, userOpHash: transfer.userOpHash },
        {
          userOperation: serializeOperation(operation),
          userOpHash,
          replacedOperations: [
            { userOpHash: transfer.userOpHash!, userOperation: transfer.userOperation! },
            ...replaced,
          ],
        },
      );
      if (moved !== 1) throw new Error(`transfer ${transferId} was re-priced by another attempt meanwhile`);
      const subject = {
        transferId,
        networkId: transfer.networkId,
        token: transfer.token,
        amount: transfer.amount,
        decimals: transfer.decimals,
      };
      await appendEvent(tx, {
        type: 'transfer.repriced',
        resourceId: transferId,
        userId: transfer.userId,
        data: { ...subject, userOpHash, replacedUserOpHash: transfer.userOpHash!, ...stall },
      });
    });
    return { operation, userOpHash };
  };

  /** Makes the replaced operation that landed (userOpHash) the transfer's operation again. */
  const adoptLanded = async (transferId: string, userOpHash: string): Promise<void> => {
    const em = orm.em.fork();
    const transfer = await em.findOneOrFail(TransferEntity, { transferId });
    const all = [
      { userOpHash: transfer.userOpHash!, userOperation: transfer.userOperation! },
      ...(transfer.replacedOperations ?? []),
    ];
    const landed = all.find((o) => o.userOpHash.toLowerCase() === userOpHash.toLowerCase());
    if (!landed) throw new Error(`transfer ${transferId}: ${userOpHash} is none of its operations`);
    Object.assign(transfer, {
      userOpHash: landed.userOpHash,
      userOperation: landed.userOperation,
      replacedOperations: all.filter((o) => o !== landed),
    });
    await em.flush();
  };

  /** EVM: a user operation of the account, on a nonce lane (or a key of its own), signed by the transfer key. */
  /** `cleared`: settles once the transfer may be signed (its last screening, the user still active), or refuses it. */
  const signEvm = async (transfer: Transfer, cleared: Promise<void>): Promise<Partial<Transfer>> => {
    const network = networks.get(transfer.networkId);
    if (!network) throw refused(`${transfer.networkId} is not a configured EVM network`);
    const provider = deps.providers.for(network);
    // The chain's fees are asked for at once, beside the key and the lane (an unused answer is dropped quietly).
    const feeData = provider.getFeeData();
    feeData.catch(() => undefined);
    // The key the account authorizes (a chain read) beside the nonce lane (the database), the nonce and the bundler's
    // estimate, which need only the lane: the key is needed to sign. Its refusal is the one answered when both fail (a
    // lane claimed for a refused transfer is freed by its failure, as any failure's is).
    const signing = transferSignerOf(transfer);
    signing.catch(() => undefined); // awaited below, on every path
    const token = network.tokens?.[transfer.token];
    const callData = transferCallData(transfer.toAddress, BigInt(transfer.amount), token);
    let built: UserOperation;
    try {
      const lane = await claimNonceLane(orm.em, transfer);
      // The bundler estimates its gas by simulating it: a transfer the account would refuse (past the day's cap, a
      // token without one) is refused here, before anything is signed or paid for.
      built = await buildTransferOperation(
        provider,
        deps.providers.bundler(network),
        network,
        transfer.fromAddress,
        callData,
        lane ?? transferNonceKey(transfer.transferId),
        feeData,
      ).catch((error: unknown) => {
        if (error instanceof UserOperationRejected) throw refused(`the account refused it: ${error.reason}`);
        throw error;
      });
    } catch (error) {
      await signing;
      throw error;
    }
    const signer = await signing;
    // Nothing is sponsored or signed for a transfer the last screening refused or of an account closed meanwhile.
    await cleared;
    // Gas is sponsored (within the user's budget) before the transfer key signs, as the signature covers paymasterAndData;
    // only for a user still active (the closure's fence: see signTransfer).
    const [paymasterAndData] = await deps.gasSponsor.sponsor(
      transfer.userId,
      [{ sponsorshipId: `transfer:${transfer.transferId}`, networkId: network.networkId, operation: built }],
      new Date(clock.now() + TRANSFER_SPONSORSHIP_SECONDS * 1000),
      { notActive },
    );
    const operation = { ...built, paymasterAndData: paymasterAndData! };
    const userOpHash = userOperationHash(operation, network.chainId, network.entryPoint);
    return {
      userOperation: serializeOperation({
        ...operation,
        signature: transferSignature(signer.sign(userOpHash).serialized),
      }),
      userOpHash,
    };
  };

  /** SOLANA: a transaction signed by the user's wallet key, simulated before it is kept. */
  const signSolana = async (transfer: Transfer): Promise<Partial<Transfer>> => {
    const network = networks.solana(transfer.networkId);
    if (!network) throw refused(`${transfer.networkId} is not a configured Solana network`);
    const wallet = await deps.solanaWallets.keyOf(transfer.userId);
    if (!wallet) throw refused('the user has no Solana wallet');
    const chain = deps.solanaChains.for(network);
    const signed = await chain.signTransfer({
      seed: wallet.seed,
      to: transfer.toAddress,
      symbol: chain.token(transfer.token) ? transfer.token : undefined,
      amount: BigInt(transfer.amount),
      memo: transfer.transferId,
    });
    const failure = await chain.simulate(signed.wire);
    if (failure) throw refused(`The transaction would fail on chain: ${failure}`);
    return {
      txHash: signed.signature,
      solanaTransaction: {
        wire: signed.wire,
        lastValidBlockHeight: signed.lastValidBlockHeight,
        lamportsCost: signed.lamportsCost,
      },
    };
  };

  /** The transfer's event, written with the entity manager of the transaction that changed its status. */
  const transferEvent = async (
    tx: EntityManager,
    transferId: string,
    type:
      'transfer.submitted' | 'transfer.confirmed' | 'transfer.finalized' | 'transfer.failed' | 'transfer.needs_review',
    extra: { txHash?: string | null; userOpHash?: string | null; error?: string },
  ) => {
    const t = await tx.findOneOrFail(TransferEntity, { transferId }, { disableIdentityMap: true });
    const subject = { transferId, networkId: t.networkId, token: t.token, amount: t.amount, decimals: t.decimals };
    await appendEvent(
      tx,
      type === 'transfer.failed'
        ? { type, resourceId: transferId, userId: t.userId, data: { ...subject, error: extra.error ?? 'failed' } }
        : {
            type,
            resourceId: transferId,
            userId: t.userId,
            data: {
              ...subject,
              txHash: extra.txHash ?? t.txHash ?? '',
              ...(extra.userOpHash ? { userOpHash: extra.userOpHash } : {}),
            },
          },
    );
  };

  const { finalityOnce } = looks;

  /** A transfer's outcome recorded once, with its event: a later call (a retry, a second worker) changes nothing. */
  const finish = (input: FinishInput): Promise<boolean> => finishTransferRecord(orm.em.fork(), input);

  /** The chain side of submitTransfer: what the chain did with the transfer's signed operation or transaction. */
  const submit = async (transferId: string, known?: Transfer): Promise<SubmittedTransfer> => {
    const em = orm.em.fork();
    const transfer = known ?? (await transferById(em, transferId));
    if (transfer.solanaTransaction?.wire) {
      const network = networks.solana(transfer.networkId);
      if (!network) throw new Error(`${transfer.networkId} is not a configured Solana network`);
      stillWanted();
      await handOver(em, transferId);
      // The signature was recorded with the signed bytes before anything was sent; resending them is safe.
      // eslint-disable-next-line no-restricted-syntax -- real time: a duration for metrics
      const sentAt = Date.now();
      const outcome = await deps.solanaChains.for(network).sendUntilFinal(
        {
          wire: transfer.solanaTransaction.wire,
          lastValidBlockHeight: transfer.solanaTransaction.lastValidBlockHeight!,
          signature: transfer.txHash!,
        },
        { onPoll: heartbeat },
      );
      if (outcome.landed)
        deps.confirmations?.confirmed(
          transfer.networkId,
          // eslint-disable-next-line no-restricted-syntax -- real time: a duration for metrics
          (Date.now() - sentAt) / 1000,
          outcome.success ? 'success' : 'reverted',
        );
      if (!outcome.landed) return { success: false, txHash: null, fee: null, error: outcome.error };
      return {
        success: outcome.success,
        txHash: outcome.signature,
        fee: outcome.fee,
        block: { number: outcome.slot, hash: null },
        ...(outcome.error ? { error: outcome.error } : {}),
      };
    }
    const operation = deserializeOperation(transfer.userOperation!);
    const submitted = await submitOnce({
      networkId: transfer.networkId,
      bundler: bundlers.for(transfer.networkId),
      entryPoint: bundlers.entryPoint(transfer.networkId),
      inclusion: bundlers.inclusion(transfer.networkId),
      operation,
      userOpHash: transfer.userOpHash!,
      replacedHashes: (transfer.replacedOperations ?? []).map((o) => o.userOpHash),
      // Still processing: no attempt has recorded the hand-over, which comes before every send (a reorg puts a
      // transfer back as submitted, a re-pricing records its replacement).
      neverHandedOver: transfer.status === 'processing' && !transfer.replacedOperations?.length,
      reprice: (stall) => repriceEvm(transferId, stall),
      // Before the bundler sees it: submitted, with its userOpHash told (the bundle's transaction comes with the receipt).
      recordSubmitted: () => {
        stillWanted();
        return handOver(em, transferId, transfer.userOpHash);
      },
      settle: (outcome) => deps.gasSponsor.settle(outcome),
      observer: bundlers.observer,
    });
    // A transfer's nonce key (its lane, or a key of its own) is no other in-flight operation's: nothing else can use its
    // nonce, so `ran` is always true here.
    if (!submitted.ran) throw new Error(`transfer ${transferId}: its nonce was used by another operation`);
    if ('stalled' in submitted || 'replacedBy' in submitted)
      throw new Error(
        `transfer ${transferId}: the service signs its operation, so it is re-priced, never left stalled`,
      );
    const { receipt } = submitted;
    // An operation it replaced landed instead (fees fell before the replacement went in): that one is the transfer's
    // operation now, the one finality looks for.
    if (receipt.userOpHash !== transfer.userOpHash) await adoptLanded(transferId, receipt.userOpHash);
    return {
      success: receipt.success,
      txHash: receipt.txHash,
      fee: receipt.actualGasCost.toString(),
      block: { number: String(receipt.blockNumber), hash: receipt.blockHash },
      ...(receipt.revertReason ? { error: `the account refused it: ${receipt.revertReason}` } : {}),
    };
  };

  return {
    /**
     * Signs the recorded transfer once; a retry (or a second worker) finds the signed form and leaves it.
     * `screened` (prepareTransfer's): the last screening, run beside the signing's reads; nothing is sponsored, signed
     * or stored before it passed, and its refusal is the one answered when both fail.
     */
    async signTransfer(
      { transferId }: { transferId: string },
      read?: Transfer,
      screened: Promise<void> = Promise.resolve(),
      /**
       * Told the row as this call stored its signed form (`read` with it): what the submission then needs, without
       * reading the row again. Not told when another attempt stored one first.
       */
      signedAs?: (row: Transfer) => void,
    ): Promise<void> {
      const em = orm.em.fork();
      // `read`: the row as prepareTransfer read it in this attempt (one read for its screening and its signing).
      const transfer = read ?? (await em.findOneOrFail(TransferEntity, { transferId }));
      if (transfer.userOperation || transfer.solanaTransaction?.wire) {
        await screened;
        return;
      }
      // Held for a compliance review, only an operator's approval (releaseHeldTransfer: held_for_review -> processing)
      // lets it be signed: a workflow that reaches here with it still held (started without its review) fails it.
      if (transfer.status === 'held_for_review') {
        screened.catch(() => undefined);
        throw refused('the transfer is held for a compliance review that no operator has approved');
      }
      // Only a transfer still to be sent is signed: one failed (refused, rejected, failed by the housekeeping sweep)
      // stays failed whatever workflow reaches here for it.
      if (transfer.status !== 'processing') {
        screened.catch(() => undefined);
        throw refused(`the transfer is ${transfer.status}: nothing is signed for it`);
      }
      // The service's key signs nothing for an account closed (or suspended) since the transfer was asked for. On EVM
      // the gas sponsorship's transaction is that fence (it locks the user's row and reads its status before the
      // sponsor key signs); on Solana, nothing is sponsored: the fence runs beside the signing's reads.
      const solana = networks.solana(transfer.networkId) !== undefined;
      const active = solana ? userIsActive(orm, transfer.userId) : Promise.resolve(true);
      const cleared = (async () => {
        await Promise.allSettled([screened, active]);
        await screened;
        if (!(await active)) throw notActive();
      })();
      cleared.catch(() => undefined); // awaited below, on every path
      try {
        if (solana) {
          await cleared;
          const signed = await signSolana(transfer);
          if ((await em.nativeUpdate(TransferEntity, { transferId, userOperation: null, txHash: null }, signed)) === 1)
            signedAs?.({ ...transfer, ...signed });
        } else {
          const { userOperation, userOpHash } = await signEvm(transfer, cleared);
          if ((await SIGNED.rows(em, [userOperation, userOpHash, transferId])).length)
            signedAs?.({ ...transfer, userOperation, userOpHash });
        }
      } catch (error) {
        await cleared; // the screening's refusal (or the account's state) before the signing's own failure
        throw error;
      }
    },

    /**
     * Sends the signed transfer once and waits for its inclusion. With `record` (transfers of version 3 on), the
     * outcome is recorded here (as finishTransfer would) before it is answered: no step of the workflow after the
     * chain ran it. A retry after the chain ran it finds the receipt and records nothing twice.
     */
    async submitTransfer(
      { transferId, record }: { transferId: string; record?: boolean },
      /** The row as this attempt read (or signed) it just before (sendTransfer): not read again. */
      known?: Transfer,
    ): Promise<SubmittedTransfer> {
      const sent = await submit(transferId, known);
      // The chain ran it: a failure to record it is retried (a retry finds the receipt), never final, so the workflow
      // cannot take it for a transfer that failed (it holds it for review once the attempts run out, and goes on).
      if (record)
        await finish({ transferId, ...sentOutcome(sent), ...(sent.block ? { block: sent.block } : {}) }).catch(
          (error: unknown) => {
            throw new Error(`transfer ${transferId} ran on chain; its outcome is not recorded yet: ${String(error)}`);
          },
        );
      return sent;
    },

    /**
     * Waits (heartbeating) until the confirmed transfer is final: EVM, `confirmations` blocks deep (the including one
     * counted) in the canonical chain; Solana, at `finalized` commitment. `reorged`: the chain no longer shows it,
     * so it is in flight again and must be sent again (the same signed operation or bytes).
     */
    async awaitFinality({ transferId }: { transferId: string }): Promise<'finalized' | 'reorged'> {
      const { networkId } = await orm.em
        .fork()
        .findOneOrFail(TransferEntity, { transferId }, { fields: ['networkId'], disableIdentityMap: true });
      const evm = networks.get(networkId);
      // EVM: while the chain's head is the block it was at the last look, nothing that look read can have changed (a
      // reorg replaces the head too), so its answer stands: one small read a second instead of the transfer's row, its
      // bundle's receipt and the head (a hundred transfers waiting on a chain that mines at once made that 12 % of the
      // worker's CPU in the transfers-per-second bench; on a chain of 12-second blocks, 11 of 12 looks).
      let lastHead: string | null = null;
      for (;;) {
        Context.current().heartbeat();
        const head = evm
          ? ((
              (await deps.providers.for(evm).send('eth_getBlockByNumber', ['latest', false])) as { hash: string } | null
            )?.hash ?? null)
          : null;
        if (head === null || head !== lastHead) {
          const state = await finalityOnce(transferId);
          if (state === 'moved') return 'reorged';
          if (state !== 'pending') return state;
          lastHead = head;
        }
        // Cancellable: a worker shutting down cancels the watch at once (Temporal retries it on another worker); a
        // plain timer would hold the shutdown until the transfer is final, for as long as the chain takes.
        await Context.current().sleep(FINALITY_POLL_MS);
      }
    },

    /** A reorg removed the confirmed transfer: in flight again (its amount reserved again), its block forgotten. */
    async transferReorged({ transferId }: { transferId: string }): Promise<void> {
      await changeTransfer(orm.em.fork(), {
        transferId,
        from: ['confirmed'],
        set: { status: 'submitted', blockNumber: null, blockHash: null },
        event: { type: 'transfer.submitted' },
      });
    },

    /** The transfer is held for review (search attribute NeedsReview): its event, once per transfer. */
    async recordTransferNeedsReview({ transferId }: { transferId: string }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        if (await tx.count(EventEntity, { resourceId: transferId, type: 'transfer.needs_review' })) return;
        await transferEvent(tx, transferId, 'transfer.needs_review', {});
      });
    },

    /**
     * Whether anything of this transfer may be on its way: `submitted` is recorded before an EVM operation is handed to
     * the bundler, and a Solana signature when the transaction is signed, before any broadcast.
     */
    async transferMaybeSent({ transferId }: { transferId: string }): Promise<boolean> {
      const transfer = await orm.em.fork().findOneOrFail(TransferEntity, { transferId });
      return transfer.status === 'submitted' || Boolean(transfer.txHash);
    },

    /** See finishTransferRecord: false only for an `unsent` failure of a transfer handed over meanwhile. */
    async finishTransfer(input: FinishInput): Promise<boolean> {
      return finish(input);
    },
  };
};

export type TransferActivities = ReturnType<typeof createTransferActivities>;
