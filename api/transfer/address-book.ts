import { createPublicKey, randomBytes, verify as cryptoVerify } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { getAddress, verifyMessage } from 'ethers';
import { address as solanaAddressOf, getAddressEncoder, getBase58Encoder } from '@solana/kit';
import type { Orm } from '../../db/orm';
import { AddressBookEntryEntity, type AddressBookEntry } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { problems } from '../http/problems';
import { addressOn } from '../common/addresses';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type Page, type PageRequest } from '../http/pagination';
import { HotStatement } from '../../db/sql';

/** An address's entry in the user's book (every transfer's checks read it): prepared on PostgreSQL. */
const ENTRY = new HotStatement(
  'address-book-entry',
  'select * from address_book where user_id = ? and network_id = ? and address = ?',
);

/** A recipient approved by a transfer (inside the transaction that records it): added, or its approval renewed. */
const TRUST = new HotStatement(
  'address-book-trust',
  'insert into address_book (user_id, network_id, address, approved_by, added_at, usable_from) values (?, ?, ?, ?, ?, ?) ' +
    'on conflict (user_id, network_id, address) do update set approved_by = excluded.approved_by, usable_from = excluded.usable_from',
);

const ADDRESS_BOOK_ORDER: KeysetOrder<'addedAt' | 'networkId' | 'address'> = {
  list: 'address-book',
  fields: ['addedAt', 'networkId', 'address'],
  kinds: ['date', 'string', 'string'],
  order: 'desc',
};

const MAX_ENTRIES = 200;
/** How long an ownership challenge can be signed. */
const OWNERSHIP_CHALLENGE_SECONDS = 15 * 60;

function verifyEip191(address: string, message: string, signature: string): boolean {
  try {
    return getAddress(verifyMessage(message, signature)) === getAddress(address);
  } catch {
    return false;
  }
}

function verifyEd25519(address: string, message: string, signature: string): boolean {
  try {
    const publicKey = Buffer.from(getAddressEncoder().encode(solanaAddressOf(address)));
    const bytes =
      /^[A-Za-z0-9+/]+=*$/.test(signature) && signature.length === 88
        ? Buffer.from(signature, 'base64')
        : Buffer.from(getBase58Encoder().encode(signature));
    if (bytes.length !== 64) return false;
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
      format: 'jwk',
    });
    return cryptoVerify(null, Buffer.from(message, 'utf8'), key, bytes);
  } catch {
    return false;
  }
}

/** Where a recipient stands: trusted (usable now), cooling off until a time, or not in the address book. */
export type RecipientStanding =
  { state: 'trusted' } | { state: 'cooling-off'; usableFrom: Date } | { state: 'unknown' };

/**
 * The recipients a user may send crypto to. A new address is usable once its cooling-off has passed
 * (ADDRESS_COOLING_OFF_SECONDS) or at once when a transfer to it is approved with the user's passkey. Removing an
 * entry and adding it again starts a new cooling-off.
 */
export class AddressBook {
  constructor(private readonly deps: { orm: Orm; networks: NetworkRegistry; coolingOffSeconds: number }) {}

  /** The address as stored: validated for its network (EVM checksummed, Solana base58). */
  normalize(networkId: string, address: string): string {
    const network = this.deps.networks.any(networkId);
    if (!network) throw problems.unavailable(`${networkId} is not configured`);
    return addressOn(network, address);
  }

  /** The user's recipients, newest first, a page at a time. */
  async page(userId: string, page: PageRequest): Promise<Page<AddressBookEntry>> {
    return findPage(this.deps.orm.em.fork(), AddressBookEntryEntity, { userId }, ADDRESS_BOOK_ORDER, page, {
      defaultLimit: 50,
      whole: true,
    });
  }

  async entry(userId: string, networkId: string, address: string): Promise<AddressBookEntry | null> {
    return ENTRY.entity(this.deps.orm.em.fork(), AddressBookEntryEntity, [userId, networkId, address]);
  }

  /**
   * A challenge proving control of a self-custody address in the address book: a message naming the user, the network,
   * the address, a random nonce and an expiry (OWNERSHIP_CHALLENGE_SECONDS), to be signed by the address's key.
   */
  async ownershipChallenge(
    userId: string,
    networkId: string,
    address: string,
  ): Promise<{ message: string; expiresAt: Date }> {
    const em = this.deps.orm.em.fork();
    const entry = await em.findOne(AddressBookEntryEntity, { userId, networkId, address });
    if (!entry) throw problems.notFound(`Recipient ${address} on ${networkId}`);
    const expiresAt = new Date(clock.now() + OWNERSHIP_CHALLENGE_SECONDS * 1000);
    const message = [
      'I control this address and use it with my wallet service account.',
      `Network: ${networkId}`,
      `Address: ${address}`,
      `Account: ${userId}`,
      `Nonce: ${randomBytes(16).toString('hex')}`,
      `Expires: ${expiresAt.toISOString()}`,
    ].join('\n');
    Object.assign(entry, { ownershipChallenge: message, ownershipChallengeExpiresAt: expiresAt });
    await em.flush();
    return { message, expiresAt };
  }

  /** Verifies the signed challenge (EVM: EIP-191 by the address; SOLANA: ed25519 by its key) and keeps the proof. */
  async proveOwnership(
    userId: string,
    networkId: string,
    address: string,
    signature: string | undefined,
  ): Promise<AddressBookEntry> {
    const em = this.deps.orm.em.fork();
    const entry = await em.findOne(AddressBookEntryEntity, { userId, networkId, address });
    if (!entry) throw problems.notFound(`Recipient ${address} on ${networkId}`);
    if (!signature)
      throw problems.unprocessable(
        'ownership-proof-invalid',
        'signature is required: the challenge message signed by the address',
      );
    const message = entry.ownershipChallenge;
    if (!message || !entry.ownershipChallengeExpiresAt || entry.ownershipChallengeExpiresAt.getTime() < clock.now()) {
      throw problems.conflict(
        'ownership-challenge-expired',
        `No current challenge: ask for one (POST /api/v1/transfer/address-book/${networkId}/${address}/ownership/challenge)`,
      );
    }
    const solana = this.deps.networks.any(networkId)?.kind === 'solana';
    if (!(solana ? verifyEd25519(address, message, signature) : verifyEip191(address, message, signature))) {
      throw problems.unprocessable(
        'ownership-proof-invalid',
        `The signature is not ${address}'s over the challenge (${solana ? 'ed25519, base64 or base58' : 'EIP-191 personal_sign, 0x-hex'})`,
      );
    }
    Object.assign(entry, {
      ownershipProvedAt: clock.date(),
      ownershipProof: { message, signature, scheme: solana ? 'ed25519' : 'eip191' },
      ownershipChallenge: null,
      ownershipChallengeExpiresAt: null,
    });
    await em.flush();
    return entry;
  }

  async standing(
    userId: string,
    networkId: string,
    address: string,
    em: EntityManager = this.deps.orm.em.fork(),
  ): Promise<RecipientStanding> {
    const entry = await ENTRY.entity(em, AddressBookEntryEntity, [userId, networkId, address]);
    if (!entry) return { state: 'unknown' };
    return entry.usableFrom.getTime() <= clock.now()
      ? { state: 'trusted' }
      : { state: 'cooling-off', usableFrom: entry.usableFrom };
  }

  /** Adds a recipient that waits its cooling-off; an address already there is answered as it is (created: false). */
  async add(
    userId: string,
    networkId: string,
    address: string,
  ): Promise<{ entry: AddressBookEntry; created: boolean }> {
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(AddressBookEntryEntity, { userId, networkId, address });
    if (existing) return { entry: existing, created: false };
    if ((await em.count(AddressBookEntryEntity, { userId })) >= MAX_ENTRIES) {
      throw problems.conflict(
        'address-book-full',
        `An address book holds at most ${MAX_ENTRIES} recipients; remove one first`,
      );
    }
    const now = clock.date();
    const entry = em.create(AddressBookEntryEntity, {
      userId,
      networkId,
      address,
      approvedBy: 'cooling-off',
      addedAt: now,
      usableFrom: new Date(now.getTime() + this.deps.coolingOffSeconds * 1000),
    });
    try {
      await em.flush();
      return { entry, created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return {
        entry: await this.deps.orm.em.fork().findOneOrFail(AddressBookEntryEntity, { userId, networkId, address }),
        created: false,
      };
    }
  }

  /**
   * Inside the transaction that records a transfer: a passkey-approved recipient becomes usable now; with no
   * cooling-off configured, a new recipient is recorded as usable at once.
   */
  async trust(
    tx: EntityManager,
    userId: string,
    networkId: string,
    address: string,
    approvedBy: 'passkey' | 'cooling-off',
  ): Promise<void> {
    const now = clock.date();
    await TRUST.rows(tx, [userId, networkId, address, approvedBy, now, now]);
  }

  get coolingOffSeconds(): number {
    return this.deps.coolingOffSeconds;
  }

  async remove(userId: string, networkId: string, address: string): Promise<void> {
    const removed = await this.deps.orm.em.fork().nativeDelete(AddressBookEntryEntity, { userId, networkId, address });
    if (!removed) throw problems.notFound(`Recipient ${address} on ${networkId}`);
  }

  view(entry: AddressBookEntry) {
    return {
      network: entry.networkId,
      address: entry.address,
      status: entry.usableFrom.getTime() <= clock.now() ? ('trusted' as const) : ('cooling_off' as const),
      approved_by: entry.approvedBy,
      added_at: entry.addedAt.toISOString(),
      usable_from: entry.usableFrom.toISOString(),
      ownership_proved_at: entry.ownershipProvedAt?.toISOString() ?? null,
    };
  }
}
