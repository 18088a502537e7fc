import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000Initial as PgInitial } from './Migration20261122000000Initial';
import { Migration20261122060000SmartAccounts as PgSmartAccounts } from './Migration20261122060000SmartAccounts';
import { Migration20261122070000KeyRotation as PgKeyRotation } from './Migration20261122070000KeyRotation';
import { Migration20261122080000DidKeys as PgDidKeys } from './Migration20261122080000DidKeys';
import { Migration20261122090000Passkeys as PgPasskeys } from './Migration20261122090000Passkeys';
import { Migration20261122100000Money as PgMoney } from './Migration20261122100000Money';
import { Migration20261122110000Assets as PgAssets } from './Migration20261122110000Assets';
import { Migration20261122120000Pins as PgPins } from './Migration20261122120000Pins';
import { Migration20261122130000Transfers as PgTransfers } from './Migration20261122130000Transfers';
import { Migration20261122140000SolanaWallets as PgSolanaWallets } from './Migration20261122140000SolanaWallets';
import { Migration20261122150000RateLimits as PgRateLimits } from './Migration20261122150000RateLimits';
import { Migration20261123000000SignedOperations as PgSignedOperations } from './Migration20261123000000SignedOperations';
import { Migration20261123010000ChargeReview as PgChargeReview } from './Migration20261123010000ChargeReview';
import { Migration20261123020000PinApprovals as PgPinApprovals } from './Migration20261123020000PinApprovals';
import { Migration20261123030000SealedNames as PgSealedNames } from './Migration20261123030000SealedNames';
import { Migration20261123040000SpendingLimits as PgSpendingLimits } from './Migration20261123040000SpendingLimits';
import { Migration20261123050000GasSponsorships as PgGasSponsorships } from './Migration20261123050000GasSponsorships';
import { Migration20261123060000TransferPolicy as PgTransferPolicy } from './Migration20261123060000TransferPolicy';
import { Migration20261123070000TransferKeyRotation as PgTransferKeyRotation } from './Migration20261123070000TransferKeyRotation';
import { Migration20261124090102EmailVerification as PgEmailVerification } from './Migration20261124090102EmailVerification';
import { Migration20261124091556Events as PgEvents } from './Migration20261124091556Events';
import { Migration20261124115358CredentialStatus as PgCredentialStatus } from './Migration20261124115358CredentialStatus';
import { Migration20261124092537WebhookEndpoints as PgWebhookEndpoints } from './Migration20261124092537WebhookEndpoints';
import { Migration20261125090000StepUpChallenges as PgStepUpChallenges } from './Migration20261125090000StepUpChallenges';
import { Migration20261125110000Devices as PgDevices } from './Migration20261125110000Devices';
import { Migration20261125120000Recovery as PgRecovery } from './Migration20261125120000Recovery';
import { Migration20261125140000Compliance as PgCompliance } from './Migration20261125140000Compliance';
import { Migration20261125150000TravelRule as PgTravelRule } from './Migration20261125150000TravelRule';
import { Migration20261125160000Monitoring as PgMonitoring } from './Migration20261125160000Monitoring';
import { Migration20261125200000TestClock as PgTestClock } from './Migration20261125200000TestClock';
import { Migration20261126040000NonceLanes as PgNonceLanes } from './Migration20261126040000NonceLanes';
import { Migration20261126060000StalledOperations as PgStalledOperations } from './Migration20261126060000StalledOperations';
import { Migration20261126070000SessionNotifications as PgSessionNotifications } from './Migration20261126070000SessionNotifications';
import { Migration20261126090000AccountNotifications as PgAccountNotifications } from './Migration20261126090000AccountNotifications';
import { Migration20261127010000TravelRuleLookup as PgTravelRuleLookup } from './Migration20261127010000TravelRuleLookup';
import { Migration20261127020000PriceReferences as PgPriceReferences } from './Migration20261127020000PriceReferences';
import { Migration20261127030000StepUp as PgStepUp } from './Migration20261127030000StepUp';
import { Migration20261127040000PinLocks as PgPinLocks } from './Migration20261127040000PinLocks';
import { Migration20261127080000Providers as PgProviders } from './Migration20261127080000Providers';
import { Migration20261127120000TrpV3 as PgTrpV3 } from './Migration20261127120000TrpV3';
import { Migration20261127150000CexApiKeys as PgCexApiKeys } from './Migration20261127150000CexApiKeys';
import { Migration20261127190000TransferTxHashIndex as PgTransferTxHashIndex } from './Migration20261127190000TransferTxHashIndex';
import { Migration20261127220000ComplianceCaseOrder as PgComplianceCaseOrder } from './Migration20261127220000ComplianceCaseOrder';
import { Migration20261201090000CexKeysDropped as PgCexKeysDropped } from './Migration20261201090000CexKeysDropped';
import { Migration20261202021924Payouts as PgPayouts } from './Migration20261202021924Payouts';
import { Migration20261202060000Swaps as PgSwaps } from './Migration20261202060000Swaps';
import { Migration20261202120000SolanaSwaps as PgSolanaSwaps } from './Migration20261202120000SolanaSwaps';
import { Migration20261203020000TransferFinalityWatchIndex as PgTransferFinalityWatchIndex } from './Migration20261203020000TransferFinalityWatchIndex';
import { Migration20261203120000IdentityRequests as PgIdentityRequests } from './Migration20261203120000IdentityRequests';
import { Migration20261204230000SessionNotificationsOnChange as PgSessionNotificationsOnChange } from './Migration20261204230000SessionNotificationsOnChange';
import { Migration20261205050000TransferReview as PgTransferReview } from './Migration20261205050000TransferReview';
import { Migration20261205080000TransferUnsentIndex as PgTransferUnsentIndex } from './Migration20261205080000TransferUnsentIndex';

/** The postgresql migrations in the order they apply (each file of this folder named here once). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122000000Initial', class: PgInitial },
  { name: 'Migration20261122060000SmartAccounts', class: PgSmartAccounts },
  { name: 'Migration20261122070000KeyRotation', class: PgKeyRotation },
  { name: 'Migration20261122080000DidKeys', class: PgDidKeys },
  { name: 'Migration20261122090000Passkeys', class: PgPasskeys },
  { name: 'Migration20261122100000Money', class: PgMoney },
  { name: 'Migration20261122110000Assets', class: PgAssets },
  { name: 'Migration20261122120000Pins', class: PgPins },
  { name: 'Migration20261122130000Transfers', class: PgTransfers },
  { name: 'Migration20261122140000SolanaWallets', class: PgSolanaWallets },
  { name: 'Migration20261122150000RateLimits', class: PgRateLimits },
  { name: 'Migration20261123000000SignedOperations', class: PgSignedOperations },
  { name: 'Migration20261123010000ChargeReview', class: PgChargeReview },
  { name: 'Migration20261123020000PinApprovals', class: PgPinApprovals },
  // SQLite stores every string as text already: the sealed names need no change there.
  { name: 'Migration20261123030000SealedNames', class: PgSealedNames },
  { name: 'Migration20261123040000SpendingLimits', class: PgSpendingLimits },
  { name: 'Migration20261123050000GasSponsorships', class: PgGasSponsorships },
  { name: 'Migration20261123060000TransferPolicy', class: PgTransferPolicy },
  { name: 'Migration20261123070000TransferKeyRotation', class: PgTransferKeyRotation },
  { name: 'Migration20261124090102EmailVerification', class: PgEmailVerification },
  { name: 'Migration20261124091556Events', class: PgEvents },
  { name: 'Migration20261124092537WebhookEndpoints', class: PgWebhookEndpoints },
  { name: 'Migration20261124115358CredentialStatus', class: PgCredentialStatus },
  { name: 'Migration20261125090000StepUpChallenges', class: PgStepUpChallenges },
  { name: 'Migration20261125110000Devices', class: PgDevices },
  { name: 'Migration20261125120000Recovery', class: PgRecovery },
  { name: 'Migration20261125140000Compliance', class: PgCompliance },
  { name: 'Migration20261125150000TravelRule', class: PgTravelRule },
  { name: 'Migration20261125160000Monitoring', class: PgMonitoring },
  { name: 'Migration20261125200000TestClock', class: PgTestClock },
  { name: 'Migration20261126040000NonceLanes', class: PgNonceLanes },
  { name: 'Migration20261126060000StalledOperations', class: PgStalledOperations },
  { name: 'Migration20261126070000SessionNotifications', class: PgSessionNotifications },
  { name: 'Migration20261126090000AccountNotifications', class: PgAccountNotifications },
  { name: 'Migration20261127010000TravelRuleLookup', class: PgTravelRuleLookup },
  { name: 'Migration20261127020000PriceReferences', class: PgPriceReferences },
  { name: 'Migration20261127030000StepUp', class: PgStepUp },
  { name: 'Migration20261127040000PinLocks', class: PgPinLocks },
  { name: 'Migration20261127080000Providers', class: PgProviders },
  { name: 'Migration20261127120000TrpV3', class: PgTrpV3 },
  { name: 'Migration20261127150000CexApiKeys', class: PgCexApiKeys },
  { name: 'Migration20261127190000TransferTxHashIndex', class: PgTransferTxHashIndex },
  { name: 'Migration20261127220000ComplianceCaseOrder', class: PgComplianceCaseOrder },
  { name: 'Migration20261201090000CexKeysDropped', class: PgCexKeysDropped },
  { name: 'Migration20261202021924Payouts', class: PgPayouts },
  { name: 'Migration20261202060000Swaps', class: PgSwaps },
  { name: 'Migration20261202120000SolanaSwaps', class: PgSolanaSwaps },
  { name: 'Migration20261203020000TransferFinalityWatchIndex', class: PgTransferFinalityWatchIndex },
  { name: 'Migration20261203120000IdentityRequests', class: PgIdentityRequests },
  { name: 'Migration20261204230000SessionNotificationsOnChange', class: PgSessionNotificationsOnChange },
  { name: 'Migration20261205050000TransferReview', class: PgTransferReview },
  { name: 'Migration20261205080000TransferUnsentIndex', class: PgTransferUnsentIndex },
];
