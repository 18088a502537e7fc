import { Migration } from '@mikro-orm/migrations';

/**
 * The transfers not yet sent (held for review or processing): the housekeeping sweep reads them every hour to fail
 * those never signed whose workflow never started; without it the sweep reads the whole table. The signature's hash
 * columns are not in its condition, so recording a signature stays an update PostgreSQL can keep on the row's page.
 */
export class Migration20261205080000TransferUnsentIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create index "transfers_unsent_index" on "transfers" ("transfer_id") ' +
        `where "status" in ('held_for_review', 'processing')`,
    );
  }
}
