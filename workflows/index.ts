export { registrationWorkflow } from './registration';
