/**
 * `npm run operator:token -- <name>`: a new operator token. The token is printed once, for the operator; the service
 * is given only its hash, as one more entry of OPERATOR_TOKENS.
 */
import { newOperatorToken, operatorTokenHash } from './operators';

const name = process.argv[2];
if (!name || !/^[A-Za-z0-9._@-]{1,64}$/.test(name)) {
  console.error('usage: npm run operator:token -- <operator name> (letters, digits, . _ @ -)');
  process.exit(2);
}
const token = newOperatorToken();
console.log(`token (give it to ${name}, once): ${token}`);
console.log(`OPERATOR_TOKENS entry:            "${name}":"${operatorTokenHash(token)}"`);
