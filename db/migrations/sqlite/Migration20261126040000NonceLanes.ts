import { Migration } from '@mikro-orm/migrations';

export class Migration20261126040000NonceLanes extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `transfers` add column `nonce_lane` integer null');
    this.addSql(
      'create unique index `transfers_network_id_from_address_nonce_lane_unique` on `transfers` (`network_id`, `from_address`, `nonce_lane`)',
    );
  }
}
