import { koreanDigits } from '../../platform/korean-day';

/**
 * bank_tran_id: the id of ours every open banking call carries (이용기관코드 + U + nine characters), unique per day
 * across everything the institution sends, and the key transfer/result finds a transfer by (with its date and amount).
 * The book keeps one per reference of ours, and when it was sent (db/bank-tran-ids.ts).
 */
export interface BankTranIdEntry {
  reference: string;
  bankTranId: string;
  /** The Korean day (YYYYMMDD) the id belongs to: it is sent on that day only. */
  tranDate: string;
  direction: 'deposit' | 'withdrawal' | 'inquiry';
  amount: bigint;
  /** When a request with this id started (it may have reached the bank); null: never sent. */
  sentAt: Date | null;
  /** When that request came back with an error status (a 5xx): over, whatever the centre did with it. */
  erroredAt: Date | null;
}

export interface BankTranIdBook {
  find(reference: string): Promise<BankTranIdEntry | undefined>;
  /** The entry of `reference`, made with an id from `newId` for today if it has none (a new id when one is taken). */
  assign(
    reference: string,
    transfer: { direction: BankTranIdEntry['direction']; amount: bigint },
    newId: () => string,
  ): Promise<BankTranIdEntry>;
  /** A new id, for today, for a reference the bank never received (or never was sent to on its day). */
  reassign(reference: string, newId: () => string): Promise<BankTranIdEntry>;
  markSent(reference: string): Promise<void>;
  markErrored(reference: string): Promise<void>;
  /** The gateway refused the request before processing it: nothing was sent after all. */
  unmarkSent(reference: string): Promise<void>;
}

/** The bank's day (Korean time), YYYYMMDD: the bank's own calendar, on real time (not the service's test clock). */
export const bankDate = (at = Date.now()): string => koreanDigits(at).slice(0, 8);
/** tran_dtime: YYYYMMDDHHmmss, Korean time. */
export const bankDateTime = (at = Date.now()): string => koreanDigits(at);
