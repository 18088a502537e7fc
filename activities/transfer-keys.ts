import { Wallet } from 'ethers';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import { TransferKeyEntity } from '../db/entities';
import type { EnvelopeEncryption } from '../platform/envelope';

/**
 * One secp256k1 key per user that their smart accounts authorize for transfers (WalletAccount.setTransferSigner,
 * inside the deployment the owner signs). Stored under envelope encryption; only the API process opens it, to sign a
 * transfer the user confirmed with their PIN.
 */
export class TransferKeys {
  constructor(private readonly orm: Orm, private readonly envelope: EnvelopeEncryption) {}

  /** The user's transfer signer address, created on first use. */
  async addressFor(userId: string): Promise<string> {
    const em = this.orm.em.fork();
    const existing = await em.findOne(TransferKeyEntity, { userId });
    if (existing) return existing.address;
    const wallet = Wallet.createRandom();
    try {
      await em.insert(TransferKeyEntity, { userId, address: wallet.address, keySealed: this.envelope.seal(wallet.privateKey, `transfer-key:${userId}`), createdAt: new Date() });
      return wallet.address;
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return (await this.orm.em.fork().findOneOrFail(TransferKeyEntity, { userId })).address; // a concurrent prepare made it
    }
  }

  async signerFor(userId: string): Promise<Wallet | undefined> {
    const row = await this.orm.em.fork().findOne(TransferKeyEntity, { userId });
    return row ? new Wallet(this.envelope.open(row.keySealed, `transfer-key:${userId}`)) : undefined;
  }
}
