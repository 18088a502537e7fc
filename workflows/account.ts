import { proxyActivities } from '@temporalio/workflow';
import type { AccountActivities } from '../activities/account';
import {
  RECORD_OPTIONS,
  type AccountClosureInput,
  type AccountClosureOutcome,
  type CredentialRevocationInput,
  type CredentialRevocationOutcome,
} from './messages';

const account = proxyActivities<AccountActivities>(RECORD_OPTIONS);

/** Closes a user's account, or answers what stops it (account-closure-<userId>). */
export async function accountClosureWorkflow(input: AccountClosureInput): Promise<AccountClosureOutcome> {
  return account.closeAccount(input);
}

/** Revokes one credential at an operator's command (credential-revocation-<vcId>): its status list is re-signed. */
export async function credentialRevocationWorkflow(
  input: CredentialRevocationInput,
): Promise<CredentialRevocationOutcome> {
  return account.revokeCredential(input);
}
