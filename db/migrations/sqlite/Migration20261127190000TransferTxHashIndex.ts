import { Migration } from '@mikro-orm/migrations';

/** Transfers found by their transaction id (CODE's Search VASP by TXID and Asset Transfer Data Request). */
export class Migration20261127190000TransferTxHashIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index `transfers_tx_hash_index` on `transfers` (`tx_hash`);');
  }
}
