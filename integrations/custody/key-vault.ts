import { randomBytes } from 'node:crypto';
import { SigningKey, Wallet } from 'ethers';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { RetiredTransferKeyEntity, SolanaWalletEntity, TransferKeyEntity } from '../../db/entities';
import type { EnvelopeEncryption } from '../../platform/envelope';
import { clock } from '../../platform/clock';
import { HotStatement } from '../../db/sql';

/** The user's current transfer key (every transfer's signing reads it). */
const CURRENT_KEY = new HotStatement<{ address: string; key_sealed: string }>(
  'transfer-key-current',
  'select address, key_sealed from transfer_keys where user_id = ?',
);

/**
 * One secp256k1 key per user that their smart accounts authorize for transfers (WalletAccount.setTransferSigner,
 * inside the deployment the owner signs). Stored under envelope encryption; only the worker process has the key that
 * opens it (KEY_ENCRYPTION_KEY), to sign a transfer the user confirmed with their PIN.
 */
export class TransferKeys {
  constructor(
    private readonly orm: Orm,
    private readonly envelope: EnvelopeEncryption,
  ) {}

  /** The user's transfer signer address, created on first use; `created` tells whether this call made it. */
  async open(userId: string): Promise<{ address: string; created: boolean }> {
    const em = this.orm.em.fork();
    const existing = await em.findOne(TransferKeyEntity, { userId });
    if (existing) return { address: existing.address, created: false };
    const wallet = Wallet.createRandom();
    try {
      await em.insert(TransferKeyEntity, {
        userId,
        address: wallet.address,
        keySealed: this.envelope.seal(wallet.privateKey, `transfer-key:${userId}`),
        createdAt: clock.date(),
      });
      return { address: wallet.address, created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return {
        address: (await this.orm.em.fork().findOneOrFail(TransferKeyEntity, { userId })).address,
        created: false,
      }; // a concurrent prepare made it
    }
  }

  /**
   * Replaces the user's current key (when it is still `replacing`) with a new one and keeps the old one retired: it
   * still signs where an account authorizes it, until the owner moves that account to the new key. Idempotent: once
   * rotated, asking again answers the current key.
   */
  async rotate(userId: string, replacing: string): Promise<{ address: string; created: boolean }> {
    return this.orm.em.fork().transactional(async (em) => {
      const current = await em.findOne(TransferKeyEntity, { userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!current) throw new Error(`user ${userId} has no transfer key to rotate`);
      if (current.address !== replacing) return { address: current.address, created: false };
      em.create(RetiredTransferKeyEntity, {
        address: current.address,
        userId,
        keySealed: current.keySealed,
        createdAt: current.createdAt,
        retiredAt: clock.date(),
      });
      const wallet = Wallet.createRandom();
      Object.assign(current, {
        address: wallet.address,
        keySealed: this.envelope.seal(wallet.privateKey, `transfer-key:${userId}`),
        createdAt: clock.date(),
      });
      return { address: wallet.address, created: true };
    });
  }

  /** The user's key with this address (the one an account authorizes): the current one or a retired one. */
  async signerFor(userId: string, address?: string): Promise<SigningKey | undefined> {
    const em = this.orm.em.fork();
    const current = await CURRENT_KEY.row(em, [userId]);
    const row =
      !address || current?.address === address
        ? current && { keySealed: current.key_sealed }
        : await em.findOne(RetiredTransferKeyEntity, { userId, address });
    // A signing key, not a wallet: the address is the row's, so nothing derives the public key (a curve
    // multiplication) per transfer.
    return row ? new SigningKey(this.envelope.open(row.keySealed, `transfer-key:${userId}`)) : undefined;
  }
}

/**
 * One Solana wallet per user: an ed25519 key the service holds under envelope encryption. There is no smart account
 * on Solana here, so the key owns the funds itself and no on-chain rule limits it; it is opened only in the worker
 * process, to sign a transfer the user confirmed with their PIN.
 */
export class SolanaWallets {
  constructor(
    private readonly orm: Orm,
    private readonly envelope: EnvelopeEncryption,
  ) {}

  async addressOf(userId: string): Promise<string | undefined> {
    return (await this.orm.em.fork().findOne(SolanaWalletEntity, { userId }))?.address;
  }

  /** The user's wallet address, created on first use; `created` tells whether this call made it. */
  async open(userId: string): Promise<{ address: string; created: boolean }> {
    const existing = await this.addressOf(userId);
    if (existing) return { address: existing, created: false };
    const seed = randomBytes(32);
    // Solana's kit loads here, at the first wallet a process opens (issue 52: not at every start).
    const { createKeyPairSignerFromPrivateKeyBytes } = await import('@solana/kit');
    const { address } = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(seed));
    try {
      await this.orm.em.fork().insert(SolanaWalletEntity, {
        userId,
        address,
        keySealed: this.envelope.seal(seed.toString('base64'), `solana-wallet:${userId}`),
        createdAt: clock.date(),
      });
      return { address, created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return { address: (await this.addressOf(userId))!, created: false }; // a concurrent request made it
    }
  }

  /** The wallet's address and its ed25519 seed (to sign with), or undefined when the user has not opened one. */
  async keyOf(userId: string): Promise<{ address: string; seed: Uint8Array } | undefined> {
    const row = await this.orm.em.fork().findOne(SolanaWalletEntity, { userId });
    return row
      ? {
          address: row.address,
          seed: new Uint8Array(Buffer.from(this.envelope.open(row.keySealed, `solana-wallet:${userId}`), 'base64')),
        }
      : undefined;
  }
}
