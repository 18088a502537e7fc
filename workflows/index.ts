export { registrationWorkflow } from './registration';
export { deployWorkflow } from './deploy';
