import { bankDate, type BankTranIdBook, type BankTranIdEntry } from '../../integrations/bank/kftc-tran-ids';

/** The bank_tran_id book in memory (db/bank-tran-ids.ts keeps it in the database, with the same rules). */
export function memoryBook(): BankTranIdBook & { entries: Map<string, BankTranIdEntry> } {
  const entries = new Map<string, BankTranIdEntry>();
  const used = new Set<string>();
  const draw = (newId: () => string) => {
    for (;;) {
      const id = newId();
      if (!used.has(id)) return (used.add(id), id);
    }
  };
  return {
    entries,
    find: async (reference) => entries.get(reference),
    assign: async (reference, transfer, newId) => {
      const known = entries.get(reference);
      if (known) return known;
      const entry = {
        reference,
        bankTranId: draw(newId),
        tranDate: bankDate(),
        ...transfer,
        sentAt: null,
        earlier: [],
      };
      entries.set(reference, entry);
      return entry;
    },
    claim: async (reference, bankTranId) => {
      const entry = entries.get(reference)!;
      if (entry.bankTranId !== bankTranId || entry.sentAt) return false;
      Object.assign(entry, { sentAt: new Date(), tranDate: bankDate() });
      return true;
    },
    reassign: async (reference, expected, newId) => {
      const entry = entries.get(reference)!;
      if (entry.bankTranId !== expected) return undefined;
      const next = {
        ...entry,
        bankTranId: draw(newId),
        tranDate: bankDate(),
        sentAt: null,
        earlier: [...entry.earlier, { bankTranId: entry.bankTranId, tranDate: entry.tranDate }],
      };
      entries.set(reference, next);
      return next;
    },
    dated: async (reference, bankTranId, tranDate) => {
      const entry = entries.get(reference)!;
      if (entry.bankTranId === bankTranId) entry.tranDate = tranDate;
    },
  };
}
