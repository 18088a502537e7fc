import type { TSchema } from '@sinclair/typebox';
import { EnvelopeErrorSchema, ProblemSchema } from '../common/schemas';
import { ProfileResponse } from '../account/schemas';
import { BackupView, DeviceView } from '../account/device-schemas';
import { OperationStatus, RecoveryStatus, RecoveryView } from '../account/recovery-schemas';
import { MarketPrice, OtherAssetView } from '../assets/schemas';
import { IdentityCheckView } from '../auth/identity-check-schemas';
import { SignInProofResponse, SignInStatusResponse } from '../auth/sign-in-schemas';
import { BankAccountView, ConsentView, ConsentedAccountView } from '../bank/schemas';
import { CexAccountView } from '../cex/schemas';
import { BalanceView, ChargeView } from '../charge/schemas';
import { CaseView } from '../compliance/schemas';
import { CredentialList, DidOperationStatus, StatusListCredential, VerifiableCredential } from '../did/schemas';
import { EVENT_WEBHOOKS, EventSchema } from '../events/schemas';
import { Quote } from '../exchange/schemas';
import { KeyRotationTaskView } from '../key-rotation/schemas';
import { AuthenticationCredential, PasskeyView, StepUpRequestSchema } from '../passkeys/schemas';
import { PinStatus } from '../pin/schemas';
import { RegistrationStatusResponse, StartRegistrationResponse, StepDescriptorSchema } from '../registration/schemas';
import { ProblemView } from '../system/schemas';
import { TransactionList } from '../transactions/schemas';
import { AddressBookEntryView, TransferLimits, TransferPrepared, TransferView } from '../transfer/schemas';
import { WalletView } from '../wallet/network-wallet-schemas';
import {
  DeployJobStatus,
  GasBudget,
  SignedSlot,
  SigningContainer,
  SigningSlot,
  SlotParameter,
  TransferKeyOperationStatus,
  TransferKeyView,
} from '../wallet/schemas';
import { Endpoint } from '../webhooks/schemas';

/**
 * The schemas the OpenAPI document names (`components.schemas`, referenced by `$ref` wherever they appear), so the
 * generated client's types read as the docs do (`components['schemas']['Transfer']`). A schema is recognised by the
 * identity of its TypeBox object: the routes' own schemas are left as they are (the validator compiles those, not the
 * document), and a schema built anew (a copy, a `Type.Partial`) stays inline. Each entry reads its schema when the
 * document is built, so a schema file reshaped under it leaves the entry unresolved (the document shows the schema
 * inline) rather than breaking the service; test/unit/openapi-components.test.ts fails on an unresolved entry and on
 * a name the document does not use.
 */
export const NAMED_SCHEMAS: ReadonlyArray<readonly [name: string, schema: () => unknown]> = [
  // Errors
  ['Problem', () => ProblemSchema],
  ['EnvelopeError', () => EnvelopeErrorSchema],
  ['ProblemType', () => ProblemView],
  // Registration, sign-in, identity checks
  ['RegistrationStarted', () => StartRegistrationResponse],
  ['Registration', () => RegistrationStatusResponse],
  ['RegistrationStep', () => StepDescriptorSchema],
  ['SignIn', () => SignInStatusResponse],
  ['SignInProof', () => SignInProofResponse],
  ['IdentityCheck', () => IdentityCheckView],
  ['StepUpRequest', () => StepUpRequestSchema],
  // Account, devices, passkeys, recovery
  ['Profile', () => ProfileResponse],
  ['Device', () => DeviceView],
  ['WalletBackup', () => BackupView],
  ['Passkey', () => PasskeyView],
  ['PasskeyAssertionCredential', () => AuthenticationCredential],
  ['RecoverySettings', () => RecoveryView],
  ['Recovery', () => RecoveryStatus],
  ['RecoveryOperation', () => OperationStatus],
  ['PinStatus', () => PinStatus],
  // Wallets, signing, keys, DID and credentials
  ['Wallet', () => WalletView],
  ['SlotParameter', () => SlotParameter],
  ['SigningSlot', () => SigningSlot],
  ['SigningContainer', () => SigningContainer],
  ['SignedSlot', () => SignedSlot],
  ['DeployJob', () => DeployJobStatus],
  ['GasBudget', () => GasBudget],
  ['TransferKey', () => TransferKeyView],
  ['TransferKeyOperation', () => TransferKeyOperationStatus],
  ['KeyRotation', () => KeyRotationTaskView],
  ['DidKeyOperation', () => DidOperationStatus],
  ['VerifiableCredential', () => VerifiableCredential],
  ['CredentialSummary', () => CredentialList.properties.items.items],
  ['StatusListCredential', () => StatusListCredential],
  // Money: bank, charges, the ledger, transfers, assets, exchange
  ['BankAccount', () => BankAccountView],
  ['BankConsent', () => ConsentView],
  ['ConsentedBankAccount', () => ConsentedAccountView],
  ['Charge', () => ChargeView],
  ['Balance', () => BalanceView],
  ['Transaction', () => TransactionList.properties.transactions.items],
  ['PreparedTransfer', () => TransferPrepared],
  ['Transfer', () => TransferView],
  ['TransferLimits', () => TransferLimits],
  ['AddressBookEntry', () => AddressBookEntryView],
  ['MarketPrice', () => MarketPrice],
  ['OtherAsset', () => OtherAssetView],
  ['CexAccount', () => CexAccountView],
  ['Quote', () => Quote],
  // Events, webhooks, compliance
  ['Event', () => EventSchema],
  ...EVENT_WEBHOOKS.map((hook) => [eventSchemaName(hook.name), () => hook.schema] as const),
  ['WebhookEndpoint', () => Endpoint],
  ['ComplianceCase', () => CaseView],
];

/** An event type's schema name: `transfer_key.completed` is `TransferKeyCompletedEvent`. */
export function eventSchemaName(type: string): string {
  return `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
}

const isSchema = (value: unknown): value is TSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The named schemas by object, and the entries that did not resolve to a schema. The events' union builds each type's
 * schema anew (api/events/schemas.ts): its members are named as the webhook of their type (`title` is the type) when
 * they are the same JSON, so the feed and the webhooks share one schema per event type.
 */
export function resolveNamedSchemas(): { names: Map<object, string>; unresolved: string[] } {
  const names = new Map<object, string>();
  const unresolved: string[] = [];
  const byName = new Map<string, object>();
  for (const [name, read] of NAMED_SCHEMAS) {
    let schema: unknown;
    try {
      schema = read();
    } catch {
      schema = undefined;
    }
    if (!isSchema(schema) || byName.has(name)) {
      unresolved.push(name);
      continue;
    }
    byName.set(name, schema);
    if (!names.has(schema)) names.set(schema, name);
  }
  const members = (EventSchema as { anyOf?: unknown[] }).anyOf ?? [];
  for (const member of members) {
    if (!isSchema(member) || typeof member.title !== 'string') continue;
    const name = eventSchemaName(member.title);
    const webhook = byName.get(name);
    if (webhook && !names.has(member) && JSON.stringify(webhook) === JSON.stringify(member)) names.set(member, name);
  }
  return { names, unresolved };
}
