import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** The service-held key a user's smart accounts authorize for transfers (sealed by envelope encryption). */
export const TransferKeyEntity = defineEntity({
  name: 'TransferKey',
  tableName: 'transfer_keys',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    address: p.string().length(42),
    keySealed: p.text(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type TransferKey = InferEntity<typeof TransferKeyEntity>;

/**
 * Transfer keys a rotation replaced. One still signs on a network whose account authorizes it until the owner moves
 * that network to the current key (or removes it); the worker signs with the key the account authorizes.
 */
export const RetiredTransferKeyEntity = defineEntity({
  name: 'RetiredTransferKey',
  tableName: 'retired_transfer_keys',
  properties: (p) => ({
    address: p.string().primary().length(42),
    userId: p.string().length(64).index(),
    keySealed: p.text(),
    createdAt: p.datetime(),
    retiredAt: p.datetime(),
  }),
});
export type RetiredTransferKey = InferEntity<typeof RetiredTransferKeyEntity>;

/**
 * A user's Solana wallet: an ed25519 key the service holds (sealed by envelope encryption). Solana has no smart
 * accounts here, so this key owns the funds; only the worker process opens it, to sign a transfer confirmed by PIN.
 */
export const SolanaWalletEntity = defineEntity({
  name: 'SolanaWallet',
  tableName: 'solana_wallets',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    address: p.string().length(44).unique(),
    /** The 32-byte ed25519 seed, base64, sealed. */
    keySealed: p.text(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type SolanaWallet = InferEntity<typeof SolanaWalletEntity>;

/** A partial index (the same statement on both dialects): transfers held or processing, not yet sent. */
export const UNSENT_INDEX =
  'create index "transfers_unsent_index" on "transfers" ("transfer_id") ' +
  `where "status" in ('held_for_review', 'processing')`;

/**
 * A crypto transfer to an external address, run by transfer-<id>: on EVM a user operation signed by the transfer key,
 * on Solana a transaction signed by the user's Solana key (its signature is the tx hash, known before it is sent).
 */
export const TransferEntity = defineEntity({
  name: 'Transfer',
  tableName: 'transfers',
  // One in-flight transfer per nonce lane of an account (NULLs never collide: released lanes, Solana transfers).
  uniques: [{ properties: ['networkId', 'fromAddress', 'nonceLane'] }],
  // A network's confirmed transfers, read by its finality watch every second.
  indexes: [
    { name: 'transfers_network_id_status_index', properties: ['networkId', 'status'] },
    // The transfers not yet sent, read by the housekeeping sweep every hour (activities/housekeeping.ts).
    { name: 'transfers_unsent_index', expression: UNSENT_INDEX },
  ],
  properties: (p) => ({
    transferId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    token: p.string().length(16),
    decimals: p.integer(),
    fromAddress: p.string().length(64),
    toAddress: p.string().length(64),
    /** Base units, as a decimal string (bigint). */
    amount: p.string().length(80),
    userOperation: p.json<Record<string, string>>().nullable(),
    userOpHash: p.string().length(66).nullable(),
    /**
     * Operations on this transfer's nonce that a re-priced one replaced after the chain's fees rose past their cap
     * (newest first): any of them may still land instead, and then it is the transfer's operation.
     */
    replacedOperations: p.json<Array<{ userOpHash: string; userOperation: Record<string, string> }>>().nullable(),
    /**
     * EVM: the account's 2D nonce key this transfer holds while in flight (1..NONCE_LANES), so a user's transfers reuse
     * a few nonce slots instead of writing a fresh one each time (20,000 gas); released once final. Null: none held
     * (released, Solana, or every lane busy, when the transfer took a key of its own).
     */
    nonceLane: p.integer().nullable(),
    /**
     * Solana: the most SOL the transfer can spend (reserved by the API when it records the intent), then, once the
     * worker signed it, the wire transaction (base64) and its last valid block height.
     */
    solanaTransaction: p.json<{ lamportsCost: string; wire?: string; lastValidBlockHeight?: string }>().nullable(),
    /**
     * processing: recorded, not yet sent; submitted: broadcast, not yet included; confirmed: included in a block;
     * finalized: past the network's confirmations (EVM) or at `finalized` commitment (Solana); failed: proven.
     */
    /** held_for_review: a monitoring rule opened a compliance case; its funds stay reserved until an operator decides. */
    status: p.enum(['held_for_review', 'processing', 'submitted', 'confirmed', 'finalized', 'failed'] as const),
    txHash: p.string().length(128).nullable().index(),
    /** The block (EVM) or slot (Solana) that included it, and the EVM block's hash: a reorg changes or removes it. */
    blockNumber: p.bigint('number').nullable(),
    blockHash: p.string().length(66).nullable(),
    /** What the transfer was worth in won at request time (the spending policy counts it); null before the policy. */
    valueKrw: p.bigint('bigint').nullable(),
    /**
     * The Travel Rule for this transfer (valued at TRAVEL_RULE_THRESHOLD_KRW or more, to an address another provider
     * hosts): the counterpart from the VASP directory, the beneficiary's name the user gave (sealed, AAD
     * `beneficiary:<transferId>`) and where the counterpart answers. Null: the rule did not apply.
     */
    travelRule: p
      .json<{
        vaspId: string;
        vaspName: string;
        /** TRP: where the counterpart's inquiries go (its Travel Address's URL); '' on CODE's network. */
        trpUrl: string;
        /** The network: CODE's (`code`, vaspId its entity id), or TRP when absent. */
        network?: 'code';
        beneficiaryNameSealed: string;
        callbackUrl: string;
        timeoutSeconds: number;
      }>()
      .nullable(),
    /**
     * held_for_review: the case a monitoring rule opened for it (the workflow's input), kept so that a retry of the
     * request after the workflow's start failed starts it with the same review. Null: no rule held it.
     */
    review: p.json<{ kind: string; detail: string }>().nullable(),
    /** Fee paid, in base units of the network's coin. */
    fee: p.string().length(80).nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type Transfer = InferEntity<typeof TransferEntity>;

/** A user's transfer limits in won, set by an operator (npm run limits); users without a row have the defaults. */
export const SpendingLimitsEntity = defineEntity({
  name: 'SpendingLimits',
  tableName: 'spending_limits',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    perTransferKrw: p.bigint('bigint'),
    dailyKrw: p.bigint('bigint'),
    /** Transfers worth more than this need a passkey approval; null: TRANSFER_PASSKEY_ABOVE_KRW. */
    passkeyAboveKrw: p.bigint('bigint').nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type SpendingLimits = InferEntity<typeof SpendingLimitsEntity>;

/**
 * A recipient a user may send to: added by the user (usable once its cooling-off has passed), approved at once by a
 * passkey-approved transfer, or carried over from transfers made before the address book existed.
 */
export const AddressBookEntryEntity = defineEntity({
  name: 'AddressBookEntry',
  tableName: 'address_book',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    networkId: p.string().primary().length(32),
    /** EVM: EIP-55 checksummed; Solana: base58. */
    address: p.string().primary().length(64),
    approvedBy: p.enum(['cooling-off', 'passkey', 'history'] as const),
    addedAt: p.datetime(),
    usableFrom: p.datetime(),
    /** A self-custody address's ownership proof: the challenge to sign (until it expires), then the signed message kept. */
    ownershipChallenge: p.text().nullable(),
    ownershipChallengeExpiresAt: p.datetime().nullable(),
    ownershipProvedAt: p.datetime().nullable(),
    ownershipProof: p.json<{ message: string; signature: string; scheme: 'eip191' | 'ed25519' }>().nullable(),
  }),
});
export type AddressBookEntry = InferEntity<typeof AddressBookEntryEntity>;
