export { registrationWorkflow } from './registration';
export { deployWorkflow } from './deploy';
export { keyRotationWorkflow, networkKeyRotationWorkflow } from './key-rotation';
export { didKeyWorkflow } from './did-key';
export { chargeWorkflow } from './charge';
export { transferWorkflow } from './transfer';
export { custodyKeyWorkflow } from './custody';
export { bankVerificationWorkflow } from './bank-verification';
export { basicInfoWorkflow } from './kyc';
