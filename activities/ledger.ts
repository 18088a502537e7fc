// The ledger lives in db/ledger.ts (the API posts a payout's acceptance too); activities import it from here.
export {
  InsufficientBalance,
  bankClearingAccount,
  payoutsInTransitAccount,
  postJournal,
  userBalanceAccount,
  type JournalInput,
  type LedgerLeg,
} from '../db/ledger';
