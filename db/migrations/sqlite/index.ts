import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000Initial as SqliteInitial } from './Migration20261122000000Initial';
import { Migration20261122060000SmartAccounts as SqliteSmartAccounts } from './Migration20261122060000SmartAccounts';
import { Migration20261122070000KeyRotation as SqliteKeyRotation } from './Migration20261122070000KeyRotation';
import { Migration20261122080000DidKeys as SqliteDidKeys } from './Migration20261122080000DidKeys';
import { Migration20261122090000Passkeys as SqlitePasskeys } from './Migration20261122090000Passkeys';
import { Migration20261122100000Money as SqliteMoney } from './Migration20261122100000Money';
import { Migration20261122110000Assets as SqliteAssets } from './Migration20261122110000Assets';
import { Migration20261122120000Pins as SqlitePins } from './Migration20261122120000Pins';
import { Migration20261122130000Transfers as SqliteTransfers } from './Migration20261122130000Transfers';
import { Migration20261122140000SolanaWallets as SqliteSolanaWallets } from './Migration20261122140000SolanaWallets';
import { Migration20261123000000SignedOperations as SqliteSignedOperations } from './Migration20261123000000SignedOperations';
import { Migration20261123010000ChargeReview as SqliteChargeReview } from './Migration20261123010000ChargeReview';
import { Migration20261123020000PinApprovals as SqlitePinApprovals } from './Migration20261123020000PinApprovals';
import { Migration20261123040000SpendingLimits as SqliteSpendingLimits } from './Migration20261123040000SpendingLimits';
import { Migration20261123050000GasSponsorships as SqliteGasSponsorships } from './Migration20261123050000GasSponsorships';
import { Migration20261123060000TransferPolicy as SqliteTransferPolicy } from './Migration20261123060000TransferPolicy';
import { Migration20261123070000TransferKeyRotation as SqliteTransferKeyRotation } from './Migration20261123070000TransferKeyRotation';
import { Migration20261124090102EmailVerification as SqliteEmailVerification } from './Migration20261124090102EmailVerification';
import { Migration20261124091556Events as SqliteEvents } from './Migration20261124091556Events';
import { Migration20261124115358CredentialStatus as SqliteCredentialStatus } from './Migration20261124115358CredentialStatus';
import { Migration20261124092537WebhookEndpoints as SqliteWebhookEndpoints } from './Migration20261124092537WebhookEndpoints';
import { Migration20261125090000StepUpChallenges as SqliteStepUpChallenges } from './Migration20261125090000StepUpChallenges';
import { Migration20261125110000Devices as SqliteDevices } from './Migration20261125110000Devices';
import { Migration20261125120000Recovery as SqliteRecovery } from './Migration20261125120000Recovery';
import { Migration20261125140000Compliance as SqliteCompliance } from './Migration20261125140000Compliance';
import { Migration20261125150000TravelRule as SqliteTravelRule } from './Migration20261125150000TravelRule';
import { Migration20261125200000TestClock as SqliteTestClock } from './Migration20261125200000TestClock';
import { Migration20261126040000NonceLanes as SqliteNonceLanes } from './Migration20261126040000NonceLanes';
import { Migration20261126060000StalledOperations as SqliteStalledOperations } from './Migration20261126060000StalledOperations';
import { Migration20261125160000Monitoring as SqliteMonitoring } from './Migration20261125160000Monitoring';
import { Migration20261127010000TravelRuleLookup as SqliteTravelRuleLookup } from './Migration20261127010000TravelRuleLookup';
import { Migration20261127020000PriceReferences as SqlitePriceReferences } from './Migration20261127020000PriceReferences';
import { Migration20261127030000StepUp as SqliteStepUp } from './Migration20261127030000StepUp';
import { Migration20261127040000PinLocks as SqlitePinLocks } from './Migration20261127040000PinLocks';
import { Migration20261127080000Providers as SqliteProviders } from './Migration20261127080000Providers';
import { Migration20261127120000TrpV3 as SqliteTrpV3 } from './Migration20261127120000TrpV3';
import { Migration20261127150000CexApiKeys as SqliteCexApiKeys } from './Migration20261127150000CexApiKeys';
import { Migration20261127190000TransferTxHashIndex as SqliteTransferTxHashIndex } from './Migration20261127190000TransferTxHashIndex';
import { Migration20261127220000ComplianceCaseOrder as SqliteComplianceCaseOrder } from './Migration20261127220000ComplianceCaseOrder';
import { Migration20261201090000CexKeysDropped as SqliteCexKeysDropped } from './Migration20261201090000CexKeysDropped';
import { Migration20261202021924Payouts as SqlitePayouts } from './Migration20261202021924Payouts';
import { Migration20261202060000Swaps as SqliteSwaps } from './Migration20261202060000Swaps';
import { Migration20261202120000SolanaSwaps as SqliteSolanaSwaps } from './Migration20261202120000SolanaSwaps';
import { Migration20261203020000TransferFinalityWatchIndex as SqliteTransferFinalityWatchIndex } from './Migration20261203020000TransferFinalityWatchIndex';
import { Migration20261203120000IdentityRequests as SqliteIdentityRequests } from './Migration20261203120000IdentityRequests';
import { Migration20261205050000TransferReview as SqliteTransferReview } from './Migration20261205050000TransferReview';
import { Migration20261205080000TransferUnsentIndex as SqliteTransferUnsentIndex } from './Migration20261205080000TransferUnsentIndex';

/** The sqlite migrations in the order they apply (each file of this folder named here once). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122000000Initial', class: SqliteInitial },
  { name: 'Migration20261122060000SmartAccounts', class: SqliteSmartAccounts },
  { name: 'Migration20261122070000KeyRotation', class: SqliteKeyRotation },
  { name: 'Migration20261122080000DidKeys', class: SqliteDidKeys },
  { name: 'Migration20261122090000Passkeys', class: SqlitePasskeys },
  { name: 'Migration20261122100000Money', class: SqliteMoney },
  { name: 'Migration20261122110000Assets', class: SqliteAssets },
  { name: 'Migration20261122120000Pins', class: SqlitePins },
  { name: 'Migration20261122130000Transfers', class: SqliteTransfers },
  { name: 'Migration20261122140000SolanaWallets', class: SqliteSolanaWallets },
  { name: 'Migration20261123000000SignedOperations', class: SqliteSignedOperations },
  { name: 'Migration20261123010000ChargeReview', class: SqliteChargeReview },
  { name: 'Migration20261123020000PinApprovals', class: SqlitePinApprovals },
  { name: 'Migration20261123040000SpendingLimits', class: SqliteSpendingLimits },
  { name: 'Migration20261123050000GasSponsorships', class: SqliteGasSponsorships },
  { name: 'Migration20261123060000TransferPolicy', class: SqliteTransferPolicy },
  { name: 'Migration20261123070000TransferKeyRotation', class: SqliteTransferKeyRotation },
  { name: 'Migration20261124090102EmailVerification', class: SqliteEmailVerification },
  { name: 'Migration20261124091556Events', class: SqliteEvents },
  { name: 'Migration20261124092537WebhookEndpoints', class: SqliteWebhookEndpoints },
  { name: 'Migration20261124115358CredentialStatus', class: SqliteCredentialStatus },
  { name: 'Migration20261125090000StepUpChallenges', class: SqliteStepUpChallenges },
  { name: 'Migration20261125110000Devices', class: SqliteDevices },
  { name: 'Migration20261125120000Recovery', class: SqliteRecovery },
  { name: 'Migration20261125140000Compliance', class: SqliteCompliance },
  { name: 'Migration20261125150000TravelRule', class: SqliteTravelRule },
  { name: 'Migration20261125160000Monitoring', class: SqliteMonitoring },
  { name: 'Migration20261125200000TestClock', class: SqliteTestClock },
  { name: 'Migration20261126040000NonceLanes', class: SqliteNonceLanes },
  { name: 'Migration20261126060000StalledOperations', class: SqliteStalledOperations },
  { name: 'Migration20261127010000TravelRuleLookup', class: SqliteTravelRuleLookup },
  { name: 'Migration20261127020000PriceReferences', class: SqlitePriceReferences },
  { name: 'Migration20261127030000StepUp', class: SqliteStepUp },
  { name: 'Migration20261127040000PinLocks', class: SqlitePinLocks },
  { name: 'Migration20261127080000Providers', class: SqliteProviders },
  { name: 'Migration20261127120000TrpV3', class: SqliteTrpV3 },
  { name: 'Migration20261127150000CexApiKeys', class: SqliteCexApiKeys },
  { name: 'Migration20261127190000TransferTxHashIndex', class: SqliteTransferTxHashIndex },
  { name: 'Migration20261127220000ComplianceCaseOrder', class: SqliteComplianceCaseOrder },
  { name: 'Migration20261201090000CexKeysDropped', class: SqliteCexKeysDropped },
  { name: 'Migration20261202021924Payouts', class: SqlitePayouts },
  { name: 'Migration20261202060000Swaps', class: SqliteSwaps },
  { name: 'Migration20261202120000SolanaSwaps', class: SqliteSolanaSwaps },
  { name: 'Migration20261203020000TransferFinalityWatchIndex', class: SqliteTransferFinalityWatchIndex },
  { name: 'Migration20261203120000IdentityRequests', class: SqliteIdentityRequests },
  { name: 'Migration20261205050000TransferReview', class: SqliteTransferReview },
  { name: 'Migration20261205080000TransferUnsentIndex', class: SqliteTransferUnsentIndex },
];
