import { ChildWorkflowCancellationType, ParentClosePolicy, executeChild, setHandler } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { AccountActivities } from '../activities/account';
import {
  RECORD_OPTIONS,
  closurePayoutQuery,
  payoutWorkflowId,
  type AccountClosureInput,
  type AccountClosureOutcome,
  type CredentialRevocationInput,
  type CredentialRevocationOutcome,
} from './messages';
import type { payoutWorkflow } from './payout';

const account = proxyCapabilityActivities<AccountActivities>(RECORD_OPTIONS);

/**
 * Closes a user's account, or answers what stops it (account-closure-<userId>). With a won balance, the API recorded
 * its payout to the person's verified account first: it runs here as the child workflow payout-<id>, and the account
 * closes only once the bank deposited it (a refused payout gives the balance back and the account stays open).
 */
export async function accountClosureWorkflow(input: AccountClosureInput): Promise<AccountClosureOutcome> {
  setHandler(closurePayoutQuery, () => input.payoutId ?? null);
  if (input.payoutId) {
    const paid = await executeChild<typeof payoutWorkflow>('payoutWorkflow', {
      workflowId: payoutWorkflowId(input.payoutId),
      args: [{ payoutId: input.payoutId, userId: input.userId }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // The payout outlives its closure: a closure terminated or cancelled by an operator leaves the money's
      // workflow asking the bank, never money in transit with nobody asking.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
    });
    if (paid.status !== 'completed')
      return {
        closed: false,
        blockers: [
          {
            reason: 'payout-failed',
            detail: `the payout of the balance ${input.payoutId} failed (${paid.reason ?? 'refused'}): the balance is back, the account stays open`,
          },
        ],
      };
  }
  return account.closeAccount(input);
}

/** Revokes one credential at an operator's command (credential-revocation-<vcId>): its status list is re-signed. */
export async function credentialRevocationWorkflow(
  input: CredentialRevocationInput,
): Promise<CredentialRevocationOutcome> {
  return account.revokeCredential(input);
}
