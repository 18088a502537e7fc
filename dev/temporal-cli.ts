/** `npm run temporal:cli`: find or build the Temporal CLI and print where it is. */
import { resolveTemporalCli } from '../platform/temporal-cli';

console.log(resolveTemporalCli({ build: true, log: (line) => console.error(line) }));
