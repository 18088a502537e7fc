export * from './registration';
export * from './user';
export * from './upload';
export * from './wallet-backup';
export * from './idempotency-record';
export * from './refresh-token';
export * from './kyc-basic-info';
export * from './smart-account';
export * from './deploy-job';
export * from './key-rotation';
export * from './did-key-operation';
export * from './passkey';
export * from './verifiable-credential';
export * from './bank';
export * from './charge';
export * from './ledger';
export * from './assets';
export * from './pin';
export * from './transfer';
import { RegistrationEntity } from './registration';
import { UserEntity } from './user';
import { UploadEntity } from './upload';
import { WalletBackupEntity } from './wallet-backup';
import { IdempotencyRecordEntity } from './idempotency-record';
import { RefreshTokenEntity } from './refresh-token';
import { KycBasicInfoEntity } from './kyc-basic-info';
import { SmartAccountEntity } from './smart-account';
import { DeployJobEntity } from './deploy-job';
import { KeyRotationNetworkEntity, KeyRotationTaskEntity } from './key-rotation';
import { DidKeyOperationEntity } from './did-key-operation';
import { PasskeyEntity, WebauthnChallengeEntity } from './passkey';
import { VerifiableCredentialEntity } from './verifiable-credential';
import { BankAccountEntity, BankVerificationEntity } from './bank';
import { ChargeEntity } from './charge';
import { LedgerAccountEntity, LedgerEntryEntity, LedgerJournalEntity } from './ledger';
import { CexAccountEntity, CexAuthorizationEntity, OtherAssetEntity } from './assets';
import { UserPinEntity } from './pin';
import { SolanaWalletEntity, TransferEntity, TransferKeyEntity } from './transfer';

export const ALL_ENTITIES = [
  RegistrationEntity, UserEntity, UploadEntity, WalletBackupEntity, IdempotencyRecordEntity, RefreshTokenEntity,
  KycBasicInfoEntity, SmartAccountEntity, DeployJobEntity, KeyRotationTaskEntity, KeyRotationNetworkEntity,
  DidKeyOperationEntity, PasskeyEntity, WebauthnChallengeEntity, VerifiableCredentialEntity, BankVerificationEntity,
  BankAccountEntity, ChargeEntity, LedgerAccountEntity, LedgerJournalEntity, LedgerEntryEntity, OtherAssetEntity,
  CexAuthorizationEntity, CexAccountEntity, UserPinEntity, TransferKeyEntity, TransferEntity, SolanaWalletEntity,
];
