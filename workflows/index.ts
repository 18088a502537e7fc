export { registrationWorkflow } from './registration';
export { deployWorkflow } from './deploy';
export { keyRotationWorkflow, networkKeyRotationWorkflow } from './key-rotation';
export { didKeyWorkflow } from './did-key';
export { chargeWorkflow } from './charge';
export { payoutWorkflow, payoutLandingWatchWorkflow } from './payout';
export {
  transferWorkflow,
  transferFinalityWorkflow,
  transferFinalityWatchWorkflow,
  travelRuleConfirmationWorkflow,
} from './transfer';
export { custodyKeyWorkflow } from './custody';
export { bankVerificationWorkflow } from './bank-verification';
export { emailVerificationWorkflow } from './email-verification';
export { webhookEndpointWorkflow } from './webhooks';
export { basicInfoWorkflow, kycRenewalWorkflow } from './kyc';
export { gasSponsorshipWorkflow } from './gas-sponsorship';
export { transferKeyWorkflow } from './transfer-key';
export { swapWorkflow } from './swap';
export { solanaSwapWorkflow } from './solana-swap';
export { accountClosureWorkflow, credentialRevocationWorkflow } from './account';
export { securityNoticeWorkflow } from './security-notice';
export { signInWorkflow } from './sign-in';
export { accountRecoveryWorkflow } from './account-recovery';
export { accountUpgradeWorkflow, recoveryCancelWorkflow } from './account-upgrade';
export { sanctionsListRefreshWorkflow, travelRuleAnswerWorkflow, codeMemberKeysWorkflow } from './compliance';
export { testClockMoveWorkflow } from './test-clock';
export { housekeepingWorkflow, unstartedTransferWorkflow } from './housekeeping';
