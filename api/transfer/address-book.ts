import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { AddressBookEntryEntity, type AddressBookEntry } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { problems } from '../http/problems';
import { addressOn } from '../common/addresses';

const MAX_ENTRIES = 200;

/** Where a recipient stands: trusted (usable now), cooling off until a time, or not in the address book. */
export type RecipientStanding = { state: 'trusted' } | { state: 'cooling-off'; usableFrom: Date } | { state: 'unknown' };

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

  async list(userId: string): Promise<AddressBookEntry[]> {
    return this.deps.orm.em.fork().find(AddressBookEntryEntity, { userId }, { orderBy: { addedAt: 'desc' } });
  }

  async standing(userId: string, networkId: string, address: string, em: EntityManager = this.deps.orm.em.fork()): Promise<RecipientStanding> {
    const entry = await em.findOne(AddressBookEntryEntity, { userId, networkId, address });
    if (!entry) return { state: 'unknown' };
    return entry.usableFrom.getTime() <= Date.now() ? { state: 'trusted' } : { state: 'cooling-off', usableFrom: entry.usableFrom };
  }

  /** Adds a recipient that waits its cooling-off; an address already there is answered as it is (created: false). */
  async add(userId: string, networkId: string, address: string): Promise<{ entry: AddressBookEntry; created: boolean }> {
    const em = this.deps.orm.em.fork();
    const existing = await em.findOne(AddressBookEntryEntity, { userId, networkId, address });
    if (existing) return { entry: existing, created: false };
    if ((await em.count(AddressBookEntryEntity, { userId })) >= MAX_ENTRIES) {
      throw problems.conflict('address-book-full', `An address book holds at most ${MAX_ENTRIES} recipients; remove one first`);
    }
    const now = new Date();
    const entry = em.create(AddressBookEntryEntity, {
      userId, networkId, address, approvedBy: 'cooling-off', addedAt: now, usableFrom: new Date(now.getTime() + this.deps.coolingOffSeconds * 1000),
    });
    try {
      await em.flush();
      return { entry, created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return { entry: await this.deps.orm.em.fork().findOneOrFail(AddressBookEntryEntity, { userId, networkId, address }), created: false };
    }
  }

  /**
   * Inside the transaction that records a transfer: a passkey-approved recipient becomes usable now; with no
   * cooling-off configured, a new recipient is recorded as usable at once.
   */
  async trust(tx: EntityManager, userId: string, networkId: string, address: string, approvedBy: 'passkey' | 'cooling-off'): Promise<void> {
    const now = new Date();
    await tx.upsert(AddressBookEntryEntity, { userId, networkId, address, approvedBy, addedAt: now, usableFrom: now }, {
      onConflictFields: ['userId', 'networkId', 'address'], onConflictMergeFields: ['approvedBy', 'usableFrom'],
    });
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
      network: entry.networkId, address: entry.address,
      status: entry.usableFrom.getTime() <= Date.now() ? 'trusted' as const : 'cooling_off' as const,
      approved_by: entry.approvedBy, added_at: entry.addedAt.toISOString(), usable_from: entry.usableFrom.toISOString(),
    };
  }
}
