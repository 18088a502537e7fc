import { gasPerOperation } from './bench/gas';
(async () => { await gasPerOperation(console.log); })().catch((e) => { console.error(e); process.exit(1); });
