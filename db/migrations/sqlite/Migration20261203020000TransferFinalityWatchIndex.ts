import { Migration } from '@mikro-orm/migrations';

/** The confirmed transfers of one network, read by its finality watch every second (activities/transfer.ts watchFinality). */
export class Migration20261203020000TransferFinalityWatchIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index `transfers_network_id_status_index` on `transfers` (`network_id`, `status`);');
  }
}
