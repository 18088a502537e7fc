export * from './registration';
export * from './email';
export * from './event';
export * from './webhook';
export * from './user';
export * from './upload';
export * from './identity-request';
export * from './wallet-backup';
export * from './idempotency-record';
export * from './refresh-token';
export * from './kyc-basic-info';
export * from './smart-account';
export * from './signed-operation';
export * from './solana-swap';
export * from './key-rotation';
export * from './passkey';
export * from './verifiable-credential';
export * from './bank';
export * from './charge';
export * from './payout';
export * from './ledger';
export * from './assets';
export * from './pin';
export * from './device';
export * from './recovery';
export * from './transfer';
export * from './gas-sponsorship';
export * from './compliance';
export * from './test-clock';
export * from './price-reference';
export * from './mail-send';
export * from './bank-consent';
import { RegistrationEntity } from './registration';
import { UserEntity } from './user';
import { UploadEntity } from './upload';
import { IdentityRequestEntity } from './identity-request';
import { WalletBackupEntity } from './wallet-backup';
import { IdempotencyRecordEntity } from './idempotency-record';
import { RefreshTokenEntity } from './refresh-token';
import { KycBasicInfoEntity } from './kyc-basic-info';
import { SmartAccountEntity } from './smart-account';
import { SignedOperationEntity } from './signed-operation';
import { SolanaSwapEntity } from './solana-swap';
import { KeyRotationNetworkEntity, KeyRotationTaskEntity } from './key-rotation';
import { PasskeyEntity, WebauthnChallengeEntity } from './passkey';
import { CredentialStatusListEntity, VerifiableCredentialEntity } from './verifiable-credential';
import { BankAccountEntity, BankTranIdEntity, BankVerificationEntity } from './bank';
import { BankConsentAccountEntity, BankConsentEntity } from './bank-consent';
import { ChargeEntity } from './charge';
import { PayoutEntity } from './payout';
import { LedgerAccountEntity, LedgerEntryEntity, LedgerJournalEntity } from './ledger';
import { CexAccountEntity, CexAuthorizationEntity, OtherAssetEntity } from './assets';
import { PinApprovalEntity, UserPinEntity } from './pin';
import {
  AddressBookEntryEntity,
  RetiredTransferKeyEntity,
  SolanaWalletEntity,
  SpendingLimitsEntity,
  TransferEntity,
  TransferKeyEntity,
} from './transfer';
import { GasSponsorshipEntity } from './gas-sponsorship';
import { EmailChangeEntity, EmailVerificationEntity } from './email';
import { EventEntity, EventStreamEntity } from './event';
import { WebhookEndpointEntity } from './webhook';
import { AccountBackupEntity, DeviceEntity, SignInEntity } from './device';
import { RecoveryEntity, RecoveryNetworkEntity } from './recovery';
import {
  ComplianceCaseEntity,
  SanctionedAddressEntity,
  SanctionsListEntity,
  TravelRuleRecordEntity,
} from './compliance';
import { TestClockEntity } from './test-clock';
import { PriceReferenceEntity } from './price-reference';
import { MailSendEntity } from './mail-send';

export const ALL_ENTITIES = [
  RegistrationEntity,
  UserEntity,
  UploadEntity,
  IdentityRequestEntity,
  WalletBackupEntity,
  IdempotencyRecordEntity,
  RefreshTokenEntity,
  KycBasicInfoEntity,
  SmartAccountEntity,
  SignedOperationEntity,
  SolanaSwapEntity,
  KeyRotationTaskEntity,
  KeyRotationNetworkEntity,
  PasskeyEntity,
  WebauthnChallengeEntity,
  VerifiableCredentialEntity,
  BankVerificationEntity,
  BankAccountEntity,
  ChargeEntity,
  PayoutEntity,
  LedgerAccountEntity,
  LedgerJournalEntity,
  LedgerEntryEntity,
  OtherAssetEntity,
  CexAuthorizationEntity,
  CexAccountEntity,
  UserPinEntity,
  PinApprovalEntity,
  TransferKeyEntity,
  TransferEntity,
  SolanaWalletEntity,
  SpendingLimitsEntity,
  AddressBookEntryEntity,
  RetiredTransferKeyEntity,
  GasSponsorshipEntity,
  EmailVerificationEntity,
  EmailChangeEntity,
  EventEntity,
  EventStreamEntity,
  WebhookEndpointEntity,
  CredentialStatusListEntity,
  DeviceEntity,
  SignInEntity,
  AccountBackupEntity,
  RecoveryEntity,
  RecoveryNetworkEntity,
  SanctionsListEntity,
  SanctionedAddressEntity,
  ComplianceCaseEntity,
  TravelRuleRecordEntity,
  TestClockEntity,
  PriceReferenceEntity,
  MailSendEntity,
  BankTranIdEntity,
  BankConsentEntity,
  BankConsentAccountEntity,
];
