import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from './orm';
import { BankTranIdEntity, type BankTranId } from './entities';
import type { BankTranIdBook, BankTranIdEntry, SentId } from '../integrations/bank/kftc-tran-ids';
import { koreanDigits } from '../platform/korean-day';

/** The bank's day: its calendar runs on real time, not the service's test clock. */
const bankDate = () => koreanDigits(Date.now()).slice(0, 8);

const entryOf = (row: BankTranId): BankTranIdEntry => ({
  reference: row.reference,
  bankTranId: row.bankTranId,
  tranDate: row.tranDate,
  direction: row.direction,
  amount: row.amount,
  sentAt: row.sentAt ?? null,
  earlier: (row.earlierIds ?? []) as SentId[],
});

/** Tries a few new ids: one already taken (by another reference, ever) is drawn again. */
const ATTEMPTS = 5;

/**
 * The book of bank_tran_ids every API and worker process shares. Ids are unique in the table, so two references never
 * share one; a reference keeps its id (a retry reuses it); and every change is made only if the row is still as the
 * caller read it, so of two attempts running at once one claims a send, one replaces an id.
 */
export const storedBankTranIds = (orm: Orm): BankTranIdBook => {
  const find = async (reference: string) => {
    const row = await orm.em.fork().findOne(BankTranIdEntity, { reference });
    return row ? entryOf(row) : undefined;
  };
  /** Runs `write` with newly drawn ids until one is not taken; what it answers. */
  const withNewId = async <T>(write: (id: string) => Promise<T>, newId: () => string, what: string): Promise<T> => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      try {
        return await write(newId());
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
      }
    }
    throw new Error(`no bank_tran_id could be given to ${what}`);
  };

  return {
    find,
    async assign(reference, transfer, newId) {
      const known = await find(reference);
      if (known) return known;
      return withNewId(
        async (bankTranId) => {
          const existing = await find(reference);
          if (existing) return existing;
          const row = {
            reference,
            bankTranId,
            tranDate: bankDate(),
            direction: transfer.direction,
            amount: transfer.amount,
            sentAt: null,
            earlierIds: [],
            createdAt: new Date(),
          };
          await orm.em.fork().insert(BankTranIdEntity, row);
          return entryOf(row as BankTranId);
        },
        newId,
        reference,
      );
    },
    async claim(reference, bankTranId) {
      const claimed = await orm.em
        .fork()
        .nativeUpdate(
          BankTranIdEntity,
          { reference, bankTranId, sentAt: null },
          { sentAt: new Date(), tranDate: bankDate() },
        );
      return claimed === 1;
    },
    async reassign(reference, expected, newId) {
      const current = await find(reference);
      if (!current || current.bankTranId !== expected) return undefined;
      const earlierIds = [...current.earlier, { bankTranId: current.bankTranId, tranDate: current.tranDate }];
      return withNewId(
        async (bankTranId) => {
          const replaced = await orm.em
            .fork()
            .nativeUpdate(
              BankTranIdEntity,
              { reference, bankTranId: expected },
              { bankTranId, tranDate: bankDate(), sentAt: null, earlierIds },
            );
          return replaced === 1 ? find(reference) : undefined;
        },
        newId,
        reference,
      );
    },
    async dated(reference, bankTranId, tranDate) {
      await orm.em.fork().nativeUpdate(BankTranIdEntity, { reference, bankTranId }, { tranDate });
    },
  };
};
