import { koreanDigits } from '../../platform/korean-day';

/**
 * bank_tran_id: the id of ours every open banking call carries (이용기관코드 + U + nine characters), unique per day
 * across everything the institution sends (ours are unique for good), and the key transfer/result finds a transfer by
 * (with its date and amount). The book keeps one per reference of ours, every id it was sent under before, and whether
 * the current one was claimed for a send (db/bank-tran-ids.ts).
 */
export interface SentId {
  bankTranId: string;
  /** The Korean day (YYYYMMDD) it was sent on, as far as we know (the bank's answer says for sure). */
  tranDate: string;
}

export interface BankTranIdEntry extends SentId {
  reference: string;
  direction: 'deposit' | 'withdrawal' | 'inquiry';
  amount: bigint;
  /** When a send with the current id was claimed (it may have reached the bank); null: never sent. */
  sentAt: Date | null;
  /** The ids it was sent under before, each taken for one the bank never received (asked about all the same). */
  earlier: SentId[];
}

export interface BankTranIdBook {
  find(reference: string): Promise<BankTranIdEntry | undefined>;
  /** The entry of `reference`, made with an id from `newId` if it has none (another when the one drawn is taken). */
  assign(
    reference: string,
    transfer: { direction: BankTranIdEntry['direction']; amount: bigint },
    newId: () => string,
  ): Promise<BankTranIdEntry>;
  /**
   * Claims the current id `bankTranId` for one send, dated today: true for one caller only, however many attempts of
   * an activity run at once; false when it was claimed before (or is no longer the current id).
   */
  claim(reference: string, bankTranId: string): Promise<boolean>;
  /**
   * A new current id for a reference whose current id `expected` the bank never received (it joins `earlier`);
   * undefined when another attempt replaced it first.
   */
  reassign(reference: string, expected: string, newId: () => string): Promise<BankTranIdEntry | undefined>;
  /** The day the bank says it booked the id (its answer's bank_tran_date). */
  dated(reference: string, bankTranId: string, tranDate: string): Promise<void>;
}

/** The bank's day (Korean time), YYYYMMDD: the bank's own calendar, on real time (not the service's test clock). */
export const bankDate = (at = Date.now()): string => koreanDigits(at).slice(0, 8);
/** tran_dtime: YYYYMMDDHHmmss, Korean time. */
export const bankDateTime = (at = Date.now()): string => koreanDigits(at);
/** The bank's day after `date` (YYYYMMDD). */
export const nextBankDate = (date: string): string => {
  const next = new Date(Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8) + 1));
  return next.toISOString().slice(0, 10).replace(/-/g, '');
};
