import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';
import type { SwapDetails } from './signed-operation';

/** A SOLANA swap's terms: those of an EVM swap, with the route's steps as Jupiter names them (no fee tier, no pool address per token). */
export type SolanaSwapDetails = Omit<SwapDetails, 'hops'> & {
  hops: Array<{ tokenIn: string; tokenOut: string; pool: string }>;
  /** The slippage the quote was given at: the order asks Jupiter for no looser a threshold than its minimum. */
  slippageBps: number;
  /** SHA-256 (base64url) of the quoteId the swap was asked with: a retry with the same Idempotency-Key must name it. */
  quoteDigest: string;
  /** The quote's expiresAt (epoch ms): a swap not signed by then is not signed at all. */
  expiresAt?: number;
};

/**
 * A swap on a SOLANA network, executed with the person's custodial wallet (workflow swap-<swapId>): approved by the PIN
 * bound to its quote and Idempotency-Key (the id follows the key), then the worker asks Jupiter for the transaction,
 * checks by simulation what it does to the person's accounts, signs it and keeps the signed bytes before sending them.
 * EVM swaps are signed operations of the smart account (signed_operations, kind `swap`).
 */
export const SolanaSwapEntity = defineEntity({
  name: 'SolanaSwap',
  tableName: 'solana_swaps',
  indexes: [{ properties: ['userId', 'createdAt'] }],
  properties: (p) => ({
    swapId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    walletAddress: p.string().length(44),
    details: p.json<SolanaSwapDetails>(),
    /** submitted until it lands (completed) or is refused or expires unlanded (failed, `error` says why). */
    status: p.enum(['submitted', 'completed', 'failed'] as const),
    /** Jupiter's order the transaction came from. */
    requestId: p.string().length(64).nullable(),
    /** The signed transaction (base64), kept before it is first sent: every retry sends these bytes. */
    wire: p.text().nullable(),
    /** The block height after which the transaction can no longer land. */
    lastValidBlockHeight: p.string().length(20).nullable(),
    /** The transaction's signature (its id on chain). */
    txHash: p.string().length(88).nullable(),
    /** Lamports the network charged. */
    fee: p.string().length(20).nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type SolanaSwap = InferEntity<typeof SolanaSwapEntity>;
