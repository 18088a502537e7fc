import { Migration } from '@mikro-orm/migrations';

/**
 * Transfers and Travel Rule records found by their transaction id (CODE's Search VASP by TXID, Asset Transfer Data
 * Request, and a txid reported for one authorization only).
 */
export class Migration20261127190000TransferTxHashIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index `transfers_tx_hash_index` on `transfers` (`tx_hash`);');
    this.addSql(
      'create index `travel_rule_records_txid_index` on `travel_rule_records` (`txid`);',
    );
  }
}
