import { Migration } from '@mikro-orm/migrations';

export class Migration20261126040000NonceLanes extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "transfers" add column "nonce_lane" int null');
    this.addSql(
      'alter table "transfers" add constraint "transfers_network_id_from_address_nonce_lane_unique" unique ("network_id", "from_address", "nonce_lane")',
    );
  }
}
