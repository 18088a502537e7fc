import { Migration } from '@mikro-orm/migrations';

/**
 * The transfers not yet signed (held for review or processing, neither a user operation's hash nor a transaction's):
 * the housekeeping sweep reads them every hour to fail those whose workflow never started; without it the sweep reads
 * the whole table.
 */
export class Migration20261205080000TransferUnsignedIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create index "transfers_unsigned_index" on "transfers" ("transfer_id") ' +
        `where "status" in ('held_for_review', 'processing') and "user_op_hash" is null and "tx_hash" is null`,
    );
  }
}
