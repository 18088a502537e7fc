import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** What a signed operation does; the workflow that submits it and the answers that show it depend on it. */
export type SignedOperationKind =
  'deploy' | 'did_key' | 'transfer_key' | 'account_upgrade' | 'recovery_cancel' | 'swap';

/**
 * Kind-specific facts: `did_key` records the DID, key type and public key; `transfer_key` the action and what the
 * account will authorize (signer, until when, caps in base units per symbol); `deploy` needs none beyond the columns.
 */
export interface SignedOperationDetails {
  did?: string;
  keyType?: string;
  publicKey?: string;
  action?: string;
  signer?: string;
  validUntil?: number;
  caps?: Record<string, string>;
  /** account_upgrade: the implementation, the recovery key and delay it configures; recovery_cancel: the recovery. */
  implementation?: string;
  recoveryKey?: string;
  recoveryDelay?: number;
  recoveryId?: string;
  /** Set before the operation is first handed to the bundler: only then can it take another's place on its nonce. */
  handedOver?: boolean;
  /** swap: what the quote committed to (base units), its route, and once it ran what it really took and gave. */
  swap?: SwapDetails;
}

export interface SwapDetails {
  source: string;
  target: string;
  direction: 'exactInput' | 'exactOutput';
  amountIn: string;
  amountOut: string;
  minimumReceived: string;
  maximumSent: string;
  hops: Array<{
    tokenIn: string;
    tokenOut: string;
    tokenInAddress: string;
    tokenOutAddress: string;
    feeTier: number;
    pool: string;
  }>;
  /** The block the quote was read at. */
  blockNumber: number;
  /** What it may spend (maximumSent), in won at the hour's price when prepared: counted against the daily limit. */
  inputKrw?: string;
  received?: { amountIn: string; amountOut: string };
}

/**
 * One user operation of a smart account, prepared for the owner's signature (the slot id is the operation id), then
 * signed, claimed once and submitted by its workflow: a deployment (`dep_…`), a DID key addition (`didop_…`), a
 * change of the transfer key's grant (`tkop_…`), an upgrade to the recoverable implementation (`upg_…`) or the owner's
 * cancellation of a recovery on one network (`rcx_…`), or a swap on the network's DEX (`swap_…`). Key
 * rotation is not one of these: one owner signature over a merkle root authorizes several networks' operations
 * (key_rotation_tasks / key_rotation_networks).
 */
export const SignedOperationEntity = defineEntity({
  name: 'SignedOperation',
  tableName: 'signed_operations',
  properties: (p) => ({
    operationId: p.string().primary().length(64),
    kind: p.enum(['deploy', 'did_key', 'transfer_key', 'account_upgrade', 'recovery_cancel', 'swap'] as const),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    accountAddress: p.string().length(42),
    /** The owner key the operation was prepared for. */
    ownerAddress: p.string().length(42),
    details: p.json<SignedOperationDetails>(),
    /** The user operation (bigints as decimal strings); its signature field is set at execute. */
    userOperation: p.json<Record<string, string>>(),
    userOpHash: p.string().length(66),
    /**
     * `stalled`: handed to the bundler, but the chain asks more than its fee cap (stallReason); it may still land, or
     * the owner prepares the same operation again and signs it at today's fees. `replaced`: that new one took its place
     * (replacedBy).
     */
    status: p.enum(['prepared', 'submitted', 'stalled', 'completed', 'failed', 'replaced'] as const),
    stallReason: p.string().length(32).nullable(),
    replacedBy: p.string().length(64).nullable(),
    txHash: p.string().length(66).nullable(),
    error: p.text().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type SignedOperation = InferEntity<typeof SignedOperationEntity>;
