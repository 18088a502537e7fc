/** The tests' private certificate authorities: the sandbox's (openssl), one folder each. */
export { TestCa, type Pem } from '../../sandbox/certificates';
