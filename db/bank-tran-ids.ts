import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from './orm';
import { BankTranIdEntity, type BankTranId } from './entities';
import type { BankTranIdBook, BankTranIdEntry } from '../integrations/bank/kftc-tran-ids';
import { koreanDigits } from '../platform/korean-day';

const bankDate = () => koreanDigits(Date.now()).slice(0, 8);

const entryOf = (row: BankTranId): BankTranIdEntry => ({
  reference: row.reference,
  bankTranId: row.bankTranId,
  tranDate: row.tranDate,
  direction: row.direction,
  amount: row.amount,
  sentAt: row.sentAt ?? null,
  erroredAt: row.erroredAt ?? null,
});

/** Tries a few new ids: one already taken (by another reference, ever) is drawn again. */
const ATTEMPTS = 5;

/**
 * The book of bank_tran_ids every API and worker process shares: ids are unique in the table, so two references never
 * share one however many processes draw at once, and a reference keeps its first id (a retry reuses it).
 */
export const storedBankTranIds = (orm: Orm): BankTranIdBook => {
  const find = async (reference: string) => {
    const row = await orm.em.fork().findOne(BankTranIdEntity, { reference });
    return row ? entryOf(row) : undefined;
  };
  const setSent = (reference: string, sentAt: Date | null) =>
    orm.em.fork().nativeUpdate(BankTranIdEntity, { reference }, { sentAt, erroredAt: null });

  return {
    find,
    async assign(reference, transfer, newId) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        const known = await find(reference);
        if (known) return known;
        try {
          const row = {
            reference,
            bankTranId: newId(),
            tranDate: bankDate(),
            direction: transfer.direction,
            amount: transfer.amount,
            sentAt: null,
            erroredAt: null,
            createdAt: new Date(),
          };
          await orm.em.fork().insert(BankTranIdEntity, row);
          return entryOf(row);
        } catch (error) {
          // Another process gave this reference its id first, or the id drawn is taken: look again.
          if (!(error instanceof UniqueConstraintViolationException)) throw error;
        }
      }
      throw new Error(`no bank_tran_id could be given to ${reference}`);
    },
    async reassign(reference, newId) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        try {
          await orm.em
            .fork()
            .nativeUpdate(
              BankTranIdEntity,
              { reference },
              { bankTranId: newId(), tranDate: bankDate(), sentAt: null, erroredAt: null },
            );
          return (await find(reference))!;
        } catch (error) {
          if (!(error instanceof UniqueConstraintViolationException)) throw error;
        }
      }
      throw new Error(`no new bank_tran_id could be given to ${reference}`);
    },
    markSent: async (reference) => {
      await setSent(reference, new Date());
    },
    markErrored: async (reference) => {
      await orm.em.fork().nativeUpdate(BankTranIdEntity, { reference }, { erroredAt: new Date() });
    },
    unmarkSent: async (reference) => {
      await setSent(reference, null);
    },
  };
};
