import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000Initial as PgInitial } from './postgresql/Migration20261122000000Initial';
import { Migration20261122000000Initial as SqliteInitial } from './sqlite/Migration20261122000000Initial';
import { Migration20261122060000SmartAccounts as PgSmartAccounts } from './postgresql/Migration20261122060000SmartAccounts';
import { Migration20261122060000SmartAccounts as SqliteSmartAccounts } from './sqlite/Migration20261122060000SmartAccounts';
import { Migration20261122070000KeyRotation as PgKeyRotation } from './postgresql/Migration20261122070000KeyRotation';
import { Migration20261122070000KeyRotation as SqliteKeyRotation } from './sqlite/Migration20261122070000KeyRotation';
import { Migration20261122080000DidKeys as PgDidKeys } from './postgresql/Migration20261122080000DidKeys';
import { Migration20261122080000DidKeys as SqliteDidKeys } from './sqlite/Migration20261122080000DidKeys';
import { Migration20261122090000Passkeys as PgPasskeys } from './postgresql/Migration20261122090000Passkeys';
import { Migration20261122090000Passkeys as SqlitePasskeys } from './sqlite/Migration20261122090000Passkeys';
import { Migration20261122100000Money as PgMoney } from './postgresql/Migration20261122100000Money';
import { Migration20261122100000Money as SqliteMoney } from './sqlite/Migration20261122100000Money';
import { Migration20261122110000Assets as PgAssets } from './postgresql/Migration20261122110000Assets';
import { Migration20261122110000Assets as SqliteAssets } from './sqlite/Migration20261122110000Assets';
import { Migration20261122120000Pins as PgPins } from './postgresql/Migration20261122120000Pins';
import { Migration20261122120000Pins as SqlitePins } from './sqlite/Migration20261122120000Pins';
import { Migration20261122130000Transfers as PgTransfers } from './postgresql/Migration20261122130000Transfers';
import { Migration20261122130000Transfers as SqliteTransfers } from './sqlite/Migration20261122130000Transfers';
import { Migration20261122140000SolanaWallets as PgSolanaWallets } from './postgresql/Migration20261122140000SolanaWallets';
import { Migration20261122140000SolanaWallets as SqliteSolanaWallets } from './sqlite/Migration20261122140000SolanaWallets';
import { Migration20261122150000RateLimits as PgRateLimits } from './postgresql/Migration20261122150000RateLimits';
import { Migration20261123000000SignedOperations as PgSignedOperations } from './postgresql/Migration20261123000000SignedOperations';
import { Migration20261123000000SignedOperations as SqliteSignedOperations } from './sqlite/Migration20261123000000SignedOperations';
import { Migration20261123010000ChargeReview as PgChargeReview } from './postgresql/Migration20261123010000ChargeReview';
import { Migration20261123010000ChargeReview as SqliteChargeReview } from './sqlite/Migration20261123010000ChargeReview';
import { Migration20261123020000PinApprovals as PgPinApprovals } from './postgresql/Migration20261123020000PinApprovals';
import { Migration20261123020000PinApprovals as SqlitePinApprovals } from './sqlite/Migration20261123020000PinApprovals';
import { Migration20261123030000SealedNames as PgSealedNames } from './postgresql/Migration20261123030000SealedNames';
import { Migration20261123040000SpendingLimits as PgSpendingLimits } from './postgresql/Migration20261123040000SpendingLimits';
import { Migration20261123040000SpendingLimits as SqliteSpendingLimits } from './sqlite/Migration20261123040000SpendingLimits';
import { Migration20261123050000GasSponsorships as PgGasSponsorships } from './postgresql/Migration20261123050000GasSponsorships';
import { Migration20261123050000GasSponsorships as SqliteGasSponsorships } from './sqlite/Migration20261123050000GasSponsorships';
import { Migration20261123060000TransferPolicy as PgTransferPolicy } from './postgresql/Migration20261123060000TransferPolicy';
import { Migration20261123060000TransferPolicy as SqliteTransferPolicy } from './sqlite/Migration20261123060000TransferPolicy';
import { Migration20261123070000TransferKeyRotation as PgTransferKeyRotation } from './postgresql/Migration20261123070000TransferKeyRotation';
import { Migration20261124090102EmailVerification as PgEmailVerification } from './postgresql/Migration20261124090102EmailVerification';
import { Migration20261124091556Events as PgEvents } from './postgresql/Migration20261124091556Events';
import { Migration20261124115358CredentialStatus as PgCredentialStatus } from './postgresql/Migration20261124115358CredentialStatus';
import { Migration20261124092537WebhookEndpoints as PgWebhookEndpoints } from './postgresql/Migration20261124092537WebhookEndpoints';
import { Migration20261123070000TransferKeyRotation as SqliteTransferKeyRotation } from './sqlite/Migration20261123070000TransferKeyRotation';
import { Migration20261124090102EmailVerification as SqliteEmailVerification } from './sqlite/Migration20261124090102EmailVerification';
import { Migration20261124091556Events as SqliteEvents } from './sqlite/Migration20261124091556Events';
import { Migration20261124115358CredentialStatus as SqliteCredentialStatus } from './sqlite/Migration20261124115358CredentialStatus';
import { Migration20261124092537WebhookEndpoints as SqliteWebhookEndpoints } from './sqlite/Migration20261124092537WebhookEndpoints';
import { Migration20261125090000StepUpChallenges as PgStepUpChallenges } from './postgresql/Migration20261125090000StepUpChallenges';
import { Migration20261125090000StepUpChallenges as SqliteStepUpChallenges } from './sqlite/Migration20261125090000StepUpChallenges';
import { Migration20261125110000Devices as PgDevices } from './postgresql/Migration20261125110000Devices';
import { Migration20261125110000Devices as SqliteDevices } from './sqlite/Migration20261125110000Devices';
import { Migration20261125120000Recovery as PgRecovery } from './postgresql/Migration20261125120000Recovery';
import { Migration20261125120000Recovery as SqliteRecovery } from './sqlite/Migration20261125120000Recovery';
import { Migration20261125140000Compliance as PgCompliance } from './postgresql/Migration20261125140000Compliance';
import { Migration20261125140000Compliance as SqliteCompliance } from './sqlite/Migration20261125140000Compliance';
import { Migration20261125150000TravelRule as PgTravelRule } from './postgresql/Migration20261125150000TravelRule';
import { Migration20261125150000TravelRule as SqliteTravelRule } from './sqlite/Migration20261125150000TravelRule';
import { Migration20261125160000Monitoring as PgMonitoring } from './postgresql/Migration20261125160000Monitoring';
import { Migration20261125200000TestClock as PgTestClock } from './postgresql/Migration20261125200000TestClock';
import { Migration20261125200000TestClock as SqliteTestClock } from './sqlite/Migration20261125200000TestClock';
import { Migration20261126040000NonceLanes as PgNonceLanes } from './postgresql/Migration20261126040000NonceLanes';
import { Migration20261126040000NonceLanes as SqliteNonceLanes } from './sqlite/Migration20261126040000NonceLanes';
import { Migration20261126060000StalledOperations as PgStalledOperations } from './postgresql/Migration20261126060000StalledOperations';
import { Migration20261126060000StalledOperations as SqliteStalledOperations } from './sqlite/Migration20261126060000StalledOperations';
import { Migration20261126070000SessionNotifications as PgSessionNotifications } from './postgresql/Migration20261126070000SessionNotifications';
import { Migration20261126090000AccountNotifications as PgAccountNotifications } from './postgresql/Migration20261126090000AccountNotifications';
import { Migration20261125160000Monitoring as SqliteMonitoring } from './sqlite/Migration20261125160000Monitoring';
import { Migration20261127010000TravelRuleLookup as PgTravelRuleLookup } from './postgresql/Migration20261127010000TravelRuleLookup';
import { Migration20261127010000TravelRuleLookup as SqliteTravelRuleLookup } from './sqlite/Migration20261127010000TravelRuleLookup';
import { Migration20261127020000PriceReferences as PgPriceReferences } from './postgresql/Migration20261127020000PriceReferences';
import { Migration20261127020000PriceReferences as SqlitePriceReferences } from './sqlite/Migration20261127020000PriceReferences';
import { Migration20261127030000StepUp as PgStepUp } from './postgresql/Migration20261127030000StepUp';
import { Migration20261127030000StepUp as SqliteStepUp } from './sqlite/Migration20261127030000StepUp';
import { Migration20261127040000PinLocks as PgPinLocks } from './postgresql/Migration20261127040000PinLocks';
import { Migration20261127040000PinLocks as SqlitePinLocks } from './sqlite/Migration20261127040000PinLocks';
import { Migration20261127080000Providers as PgProviders } from './postgresql/Migration20261127080000Providers';
import { Migration20261127080000Providers as SqliteProviders } from './sqlite/Migration20261127080000Providers';
import { Migration20261127120000TrpV3 as PgTrpV3 } from './postgresql/Migration20261127120000TrpV3';
import { Migration20261127120000TrpV3 as SqliteTrpV3 } from './sqlite/Migration20261127120000TrpV3';
import { Migration20261127150000CexApiKeys as PgCexApiKeys } from './postgresql/Migration20261127150000CexApiKeys';
import { Migration20261127150000CexApiKeys as SqliteCexApiKeys } from './sqlite/Migration20261127150000CexApiKeys';
import { Migration20261127190000TransferTxHashIndex as PgTransferTxHashIndex } from './postgresql/Migration20261127190000TransferTxHashIndex';
import { Migration20261127190000TransferTxHashIndex as SqliteTransferTxHashIndex } from './sqlite/Migration20261127190000TransferTxHashIndex';
import { Migration20261127220000ComplianceCaseOrder as PgComplianceCaseOrder } from './postgresql/Migration20261127220000ComplianceCaseOrder';
import { Migration20261127220000ComplianceCaseOrder as SqliteComplianceCaseOrder } from './sqlite/Migration20261127220000ComplianceCaseOrder';
import { Migration20261201090000CexKeysDropped as PgCexKeysDropped } from './postgresql/Migration20261201090000CexKeysDropped';
import { Migration20261201090000CexKeysDropped as SqliteCexKeysDropped } from './sqlite/Migration20261201090000CexKeysDropped';
import { Migration20261202021924Payouts as PgPayouts } from './postgresql/Migration20261202021924Payouts';
import { Migration20261202021924Payouts as SqlitePayouts } from './sqlite/Migration20261202021924Payouts';
import { Migration20261202060000Swaps as PgSwaps } from './postgresql/Migration20261202060000Swaps';
import { Migration20261202060000Swaps as SqliteSwaps } from './sqlite/Migration20261202060000Swaps';
import { Migration20261202120000SolanaSwaps as PgSolanaSwaps } from './postgresql/Migration20261202120000SolanaSwaps';
import { Migration20261202120000SolanaSwaps as SqliteSolanaSwaps } from './sqlite/Migration20261202120000SolanaSwaps';
import { Migration20261203020000TransferFinalityWatchIndex as PgTransferFinalityWatchIndex } from './postgresql/Migration20261203020000TransferFinalityWatchIndex';
import { Migration20261203020000TransferFinalityWatchIndex as SqliteTransferFinalityWatchIndex } from './sqlite/Migration20261203020000TransferFinalityWatchIndex';


export type Dialect = 'sqlite' | 'postgresql';

/** Migrations are listed explicitly so they run the same under tsx, jest and compiled JavaScript. */
const MIGRATIONS: Record<Dialect, MigrationObject[]> = {
  postgresql: [
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
  ],
  sqlite: [
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
  ],
};

export function migrationsFor(dialect: Dialect): MigrationObject[] {
  return MIGRATIONS[dialect];
}
